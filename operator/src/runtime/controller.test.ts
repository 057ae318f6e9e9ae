import assert from 'node:assert/strict';
import { ApiException, type KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import {
  Controller,
  labelSelector,
  ownerKeys,
  type ReconcileContext,
  type ReconcileOutcome,
} from './controller.js';
import { ConflictError, PermanentError } from '@aiplane/lib';
import { FakeInformer } from './testing/fake-informer.js';

const silent = pino({ level: 'silent' });

function tenant(name: string, resourceVersion = '1'): KubernetesObject {
  return {
    apiVersion: 'aiplane.io/v1alpha1',
    kind: 'TenantLifecycle',
    metadata: { name, resourceVersion },
  };
}

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function metricValue(registry: Registry, name: string, labels: Record<string, string>) {
  const metric = await registry.getSingleMetric(name)?.get();
  const found = metric?.values.find((v) =>
    Object.entries(labels).every(([k, val]) => v.labels[k] === val),
  );
  return found?.value ?? 0;
}

function setup(
  reconcile: (
    key: string,
    ctx: ReconcileContext<KubernetesObject>,
  ) => ReconcileOutcome | Promise<ReconcileOutcome>,
) {
  const registry = new Registry();
  const primary = new FakeInformer<KubernetesObject>('tenantlifecycles');
  const namespaces = new FakeInformer<KubernetesObject>('namespaces');
  const controller = new Controller({
    name: 'tenantlifecycle',
    primary,
    watches: [
      {
        informer: namespaces,
        toKeys: ownerKeys({ group: 'aiplane.io', kind: 'TenantLifecycle', namespaced: false }),
      },
    ],
    reconcile: async (key, ctx) => await reconcile(key, ctx),
    concurrency: 2,
    queue: { backoff: { baseMs: 1, maxMs: 4 } },
    registry,
    logger: silent,
  });
  return { registry, primary, namespaces, controller };
}

describe('Controller', () => {
  let controller: Controller<KubernetesObject> | undefined;
  afterEach(async () => {
    await controller?.stop();
    controller = undefined;
  });

  it('starts reconciling only after every informer has synced, with the cached object', async () => {
    const seen: Array<[string, string | undefined]> = [];
    const t = setup((key, ctx) => {
      seen.push([key, ctx.object?.metadata?.resourceVersion]);
    });
    controller = t.controller;
    t.primary.put(tenant('acme', '7'));
    void controller.run();
    t.primary.markSynced();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, [], 'namespaces informer not synced yet');
    assert.equal(controller.hasSynced(), false);
    t.namespaces.markSynced();
    await until(() => seen.length === 1, 'the first reconcile');
    assert.deepEqual(seen, [['acme', '7']]);
    assert.equal(
      await metricValue(t.registry, 'aiplane_reconcile_total', { result: 'success' }),
      1,
    );
  });

  it('maps an owned object to its owner key', async () => {
    const keys: string[] = [];
    const t = setup((key) => {
      keys.push(key);
    });
    controller = t.controller;
    t.primary.markSynced();
    t.namespaces.markSynced();
    void controller.run();
    t.namespaces.put({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'tenant-acme',
        ownerReferences: [
          { apiVersion: 'aiplane.io/v1alpha1', kind: 'TenantLifecycle', name: 'acme', uid: 'u1' },
          { apiVersion: 'other.io/v1', kind: 'TenantLifecycle', name: 'not-ours', uid: 'u2' },
        ],
      },
    });
    await until(() => keys.length === 1, 'the owner reconcile');
    assert.deepEqual(keys, ['acme']);
  });

  const failures: Array<{ name: string; error: unknown; retried: boolean; result: string }> = [
    {
      name: 'a network failure',
      error: Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }),
      retried: true,
      result: 'error',
    },
    {
      name: 'a 503',
      error: new ApiException(503, 'unavailable', '', {}),
      retried: true,
      result: 'error',
    },
    { name: 'a 409 conflict', error: new ConflictError(), retried: true, result: 'conflict' },
    {
      name: 'a 422 validation error',
      error: new ApiException(422, 'invalid', '', {}),
      retried: false,
      result: 'error',
    },
    {
      name: 'a PermanentError',
      error: new PermanentError('bad spec'),
      retried: false,
      result: 'error',
    },
  ];
  for (const { name, error, retried, result } of failures) {
    it(`${retried ? 'retries' : 'does not retry'} after ${name} and counts result=${result}`, async () => {
      let calls = 0;
      const t = setup(() => {
        calls++;
        if (calls === 1) throw error;
      });
      controller = t.controller;
      t.primary.markSynced();
      t.namespaces.markSynced();
      void controller.run();
      t.primary.put(tenant('acme'));
      await until(() => calls >= 1, 'the first reconcile');
      await new Promise((resolve) => setTimeout(resolve, 40));
      assert.equal(calls, retried ? 2 : 1);
      assert.equal(await metricValue(t.registry, 'aiplane_reconcile_total', { result }), 1);
      assert.equal(controller.queue.numRequeues('acme'), 0, 'backoff forgotten');
    });
  }

  it('requeues after the requested delay on success', async () => {
    const times: number[] = [];
    const t = setup(() => {
      times.push(Date.now());
      return times.length === 1 ? { requeueAfter: 50 } : undefined;
    });
    controller = t.controller;
    t.primary.markSynced();
    t.namespaces.markSynced();
    void controller.run();
    t.primary.put(tenant('acme'));
    await until(() => times.length === 2, 'the requeue');
    assert.ok((times[1] ?? 0) - (times[0] ?? 0) >= 45, 'waited about requeueAfter');
    assert.equal(
      await metricValue(t.registry, 'aiplane_reconcile_total', { result: 'requeue' }),
      1,
    );
    const text = await t.registry.metrics();
    assert.match(
      text,
      /aiplane_reconcile_duration_seconds_count\{controller="tenantlifecycle",result="requeue"\} 1/,
    );
    assert.match(text, /aiplane_workqueue_depth\{controller="tenantlifecycle"\} 0/);
  });

  it('on stop waits for an in-flight reconcile within the grace period and hands out nothing new', async () => {
    let release: () => void = () => undefined;
    const started: string[] = [];
    const t = setup(async (key) => {
      started.push(key);
      if (key === 'slow') await new Promise<void>((resolve) => (release = resolve));
    });
    controller = t.controller;
    t.primary.markSynced();
    t.namespaces.markSynced();
    void controller.run();
    t.primary.put(tenant('slow'));
    await until(() => started.length === 1, 'the slow reconcile');
    const stopping = controller.stop(1000);
    t.primary.put(tenant('late'));
    setTimeout(() => release(), 20);
    assert.equal(await stopping, true);
    assert.deepEqual(started, ['slow']);
  });

  it('aborts the reconcile signal when the grace period runs out', async () => {
    let signal: AbortSignal | undefined;
    const t = setup(async (_key, ctx) => {
      signal = ctx.signal;
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    });
    controller = t.controller;
    t.primary.markSynced();
    t.namespaces.markSynced();
    void controller.run();
    t.primary.put(tenant('stuck'));
    await until(() => signal !== undefined, 'the reconcile');
    assert.equal(await controller.stop(20), false);
    assert.equal(signal?.aborted, true);
  });
});

describe('labelSelector', () => {
  it('matches every label given', () => {
    assert.equal(
      labelSelector({
        'app.kubernetes.io/managed-by': 'aiplane-operator',
        'aiplane.io/tenant': 'a',
      }),
      'app.kubernetes.io/managed-by=aiplane-operator,aiplane.io/tenant=a',
    );
  });
});
