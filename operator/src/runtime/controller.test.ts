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
import { OwnWrites } from './own-writes.js';
import { StatusMemory } from './status-memory.js';
import { FakeInformer } from './testing/fake-informer.js';

const silent = pino({ level: 'silent' });

function tenant(name: string, resourceVersion = '1'): KubernetesObject {
  return {
    apiVersion: 'aiplane.io/v1alpha1',
    kind: 'TenantLifecycle',
    metadata: { name, resourceVersion },
  };
}

type Obj = KubernetesObject & { status?: unknown };

/** The namespace a TenantLifecycle owns. */
function namespaceOf(owner: string, labels: Record<string, string> = {}): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: `tenant-${owner}`,
      labels,
      ownerReferences: [
        { apiVersion: 'aiplane.io/v1alpha1', kind: 'TenantLifecycle', name: owner, uid: 'u1' },
      ],
    },
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
  more: {
    statusMemory?: StatusMemory;
    changed?: (obj: KubernetesObject, old: KubernetesObject) => boolean;
    ownWrites?: OwnWrites;
  } = {},
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
        ...(more.changed ? { changed: more.changed } : {}),
        ...(more.ownWrites ? { ownWrites: more.ownWrites } : {}),
      },
    ],
    ...(more.statusMemory ? { statusMemory: more.statusMemory } : {}),
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

  it('requeues nothing for the watch event of its own status write, and reconciles a stale cache as written', async () => {
    const seen: Array<[string, unknown]> = [];
    const memory = new StatusMemory();
    const t = setup(
      (key, ctx) => {
        seen.push([ctx.object?.metadata?.resourceVersion ?? '', (ctx.object as Obj).status]);
      },
      { statusMemory: memory },
    );
    controller = t.controller;
    t.primary.put(tenant('acme', '7'));
    t.primary.markSynced();
    t.namespaces.markSynced();
    void controller.run();
    await until(() => seen.length === 1, 'the first reconcile');
    // The reconcile wrote a status over version 7, which made version 8.
    memory.begin('acme');
    memory.remember('7', { ...tenant('acme', '8'), status: { phase: 'Ready' } });
    t.primary.put({ ...tenant('acme', '8'), status: { phase: 'Ready' } } as Obj);
    assert.equal(controller.queue.length, 0, 'its own write requeues nothing');
    // Someone else's change (a later version) is reconciled.
    t.primary.put({ ...tenant('acme', '9'), status: { phase: 'Pending' } } as Obj);
    assert.equal(controller.queue.length + controller.queue.inFlight, 1);
    await until(() => seen.length === 2, 'the reconcile of the change');
    assert.deepEqual(seen[1], ['9', { phase: 'Pending' }]);
    // A reconcile while the cache still shows the version a write was made over sees the write.
    memory.begin('acme');
    memory.remember('9', { ...tenant('acme', '10'), status: { phase: 'Ready' } });
    t.namespaces.put(namespaceOf('acme'));
    await until(() => seen.length === 3, 'the reconcile from the child');
    assert.deepEqual(seen[2], ['10', { phase: 'Ready' }]);
    // A deleted object is forgotten.
    t.primary.remove('acme');
    assert.equal(memory.size, 0);
  });

  it('maps only the child updates its `changed` calls changes', async () => {
    const keys: string[] = [];
    const t = setup(
      (key) => {
        keys.push(key);
      },
      { changed: (obj, old) => obj.metadata?.labels?.ready !== old.metadata?.labels?.ready },
    );
    controller = t.controller;
    t.primary.markSynced();
    t.namespaces.markSynced();
    void controller.run();
    t.namespaces.put(namespaceOf('acme', { ready: 'no' }));
    await until(() => keys.length === 1, 'the add');
    t.namespaces.put(namespaceOf('acme', { ready: 'no', other: 'x' }));
    assert.equal(controller.queue.length + controller.queue.inFlight, 0, 'nothing it reads');
    t.namespaces.put(namespaceOf('acme', { ready: 'yes' }));
    await until(() => keys.length === 2, 'the change');
    await until(() => controller?.queue.inFlight === 0, 'the reconcile to end');
    assert.deepEqual(keys, ['acme', 'acme'], 'the owner of both versions is reconciled once');
  });

  it('maps nothing for the watch events of children it wrote itself', async () => {
    const keys: string[] = [];
    const applied = new OwnWrites();
    const t = setup(
      (key) => {
        keys.push(key);
      },
      { ownWrites: applied },
    );
    controller = t.controller;
    t.primary.markSynced();
    t.namespaces.markSynced();
    void controller.run();
    const ns = (rv: string) => ({
      ...namespaceOf('acme'),
      metadata: { ...namespaceOf('acme').metadata, resourceVersion: rv },
    });
    applied.begin('tenant-acme');
    applied.remember(ns('3'));
    t.namespaces.put(ns('3'));
    assert.equal(controller.queue.length + controller.queue.inFlight, 0, 'its own create');
    t.namespaces.put(ns('4'));
    await until(() => keys.length === 1, 'the reconcile of a change by someone else');
    await until(() => controller?.queue.inFlight === 0, 'the reconcile to end');
    applied.begin('tenant-acme');
    applied.remember(ns('5'));
    t.namespaces.put(ns('5'));
    assert.equal(controller.queue.length + controller.queue.inFlight, 0, 'its own update');
    t.namespaces.remove('tenant-acme');
    assert.equal(applied.size, 0, 'a deleted child is forgotten');
    await until(() => keys.length === 2, 'the reconcile of the deletion');
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
