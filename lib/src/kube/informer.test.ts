import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ResilientInformer, trimForCache } from './informer.js';
import {
  type FakeApiServer,
  kubeStatus,
  sendJson,
  startFakeApiServer,
} from '../testing/fake-api-server.js';

const PATH = '/apis/aiplane.io/v1alpha1/tenantlifecycles';
const API_VERSION = 'aiplane.io/v1alpha1';

function item(name: string, resourceVersion: string, namespace?: string): KubernetesObject {
  return { metadata: { name, resourceVersion, ...(namespace ? { namespace } : {}) } };
}

function list(resourceVersion: string, items: KubernetesObject[]): unknown {
  return {
    apiVersion: API_VERSION,
    kind: 'TenantLifecycleList',
    metadata: { resourceVersion },
    items,
  };
}

function streamEvents(res: ServerResponse, events: Array<[string, KubernetesObject]>): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  for (const [type, object] of events) {
    res.write(
      `${JSON.stringify({ type, object: { apiVersion: API_VERSION, kind: 'TenantLifecycle', ...object } })}\n`,
    );
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function recordEvents(informer: ResilientInformer<KubernetesObject>): string[] {
  const events: string[] = [];
  informer.on({
    add: (o) => events.push(`add ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    update: (o, old) =>
      events.push(
        `update ${o.metadata?.name}@${old.metadata?.resourceVersion}->${o.metadata?.resourceVersion}`,
      ),
    delete: (o) => events.push(`delete ${o.metadata?.name}`),
  });
  return events;
}

describe('ResilientInformer', () => {
  it('caches objects without managedFields, kubectl’s last-applied copy, and what `slim` drops, from lists and watches', async () => {
    const heavy = (name: string, rv: string): KubernetesObject & { spec?: unknown } => ({
      spec: { template: { containers: [{ image: 'x' }] } },
      metadata: {
        ...item(name, rv).metadata,
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{}}',
          'aiplane.io/applied-hash': 'abc',
        },
      },
    });
    server = await startFakeApiServer((req, res) => {
      if (req.query.get('watch') !== 'true')
        return sendJson(res, 200, list('10', [heavy('a', '1')]));
      streamEvents(res, [['ADDED', heavy('b', '2')]]);
    });
    informer = new ResilientInformer<KubernetesObject & { spec?: unknown }>({
      kc: server.kc,
      path: PATH,
      resource: 'tenantlifecycles',
      slim: (o) => {
        delete o.spec;
      },
    });
    const seen: Array<KubernetesObject & { spec?: unknown }> = [];
    informer.on({ add: (o) => seen.push(o) });
    informer.start();
    await informer.waitForSync();
    await until(() => seen.length === 2, 'the watched object');
    for (const o of [...seen, ...informer.list()]) {
      assert.equal(o.metadata?.managedFields, undefined);
      assert.deepEqual(o.metadata?.annotations, { 'aiplane.io/applied-hash': 'abc' });
      assert.equal((o as { spec?: unknown }).spec, undefined);
    }
    const bare = item('c', '1');
    trimForCache(bare);
    assert.deepEqual(bare, item('c', '1'), 'an object without either is left as it is');
  });

  let server: FakeApiServer | undefined;
  let informer: ResilientInformer<KubernetesObject> | undefined;

  afterEach(async () => {
    await informer?.stop();
    await server?.close();
    informer = undefined;
    server = undefined;
  });

  it('restarts after a watch error that is not 410, relists, and emits only the differences', async () => {
    let lists = 0;
    let watches = 0;
    server = await startFakeApiServer((req, res) => {
      if (req.query.get('watch') !== 'true') {
        lists++;
        if (lists === 1) return sendJson(res, 200, list('10', [item('a', '1'), item('b', '1')]));
        return sendJson(res, 200, list('20', [item('a', '3'), item('c', '2'), item('d', '5')]));
      }
      watches++;
      if (watches === 1) {
        streamEvents(res, [
          ['ADDED', item('c', '2')],
          ['MODIFIED', item('a', '3')],
        ]);
        return void res.end();
      }
      if (watches === 2) return sendJson(res, 500, kubeStatus(500, 'InternalError'));
      streamEvents(res, []);
    });
    const restarts: string[] = [];
    informer = new ResilientInformer({
      kc: server.kc,
      path: PATH,
      labelSelector: 'app=aiplane',
      resource: 'tenantlifecycles',
      restartBackoff: { baseMs: 10, maxMs: 50 },
    });
    informer.on({
      restart: (err) => restarts.push(String((err as { statusCode?: number }).statusCode)),
    });
    const events = recordEvents(informer);
    informer.start();
    await informer.waitForSync();
    await until(() => events.length >= 6, 'the relist after the restart');

    assert.deepEqual(events, [
      'add a@1',
      'add b@1',
      'add c@2',
      'update a@1->3',
      'delete b',
      'add d@5',
    ]);
    assert.deepEqual(restarts, ['500'], 'one restart, for the watch that answered 500');
    assert.equal(informer.restarts, 1);
    assert.deepEqual(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
      ['a', 'c', 'd'],
    );
    assert.equal(informer.get('d')?.kind, 'TenantLifecycle', 'list items get kind from the list');
    const watchQueries = server.requests.filter((r) => r.query.get('watch') === 'true');
    assert.equal(watchQueries[0]?.query.get('resourceVersion'), '10');
    const listQuery = server.requests.find((r) => r.query.get('watch') === null);
    assert.equal(listQuery?.query.get('labelSelector'), 'app=aiplane');
    assert.equal(listQuery?.headers.authorization, 'Bearer fake-token');
  });

  it('keeps retrying a failing first list with backoff and syncs once it succeeds', async () => {
    let lists = 0;
    server = await startFakeApiServer((req, res) => {
      if (req.query.get('watch') === 'true') return streamEvents(res, []);
      lists++;
      if (lists <= 2) return sendJson(res, 503, kubeStatus(503, 'ServiceUnavailable'));
      sendJson(res, 200, list('7', [item('x', '1', 'ns1'), item('y', '1', 'ns2')]));
    });
    informer = new ResilientInformer({
      kc: server.kc,
      path: '/apis/aiplane.io/v1alpha1/mcpservers',
      restartBackoff: { baseMs: 5, maxMs: 20 },
    });
    informer.start();
    assert.equal(informer.hasSynced(), false);
    await informer.waitForSync();
    assert.equal(informer.restarts, 2);
    assert.equal(informer.get('ns1/x')?.metadata?.name, 'x');
    assert.deepEqual(
      informer.list('ns2').map((o) => o.metadata?.name),
      ['y'],
    );
  });

  it('follows continue tokens when listing', async () => {
    server = await startFakeApiServer((req, res) => {
      if (req.query.get('watch') === 'true') return streamEvents(res, []);
      if (req.query.get('continue') === 'page2')
        return sendJson(res, 200, list('9', [item('b', '1')]));
      sendJson(res, 200, {
        ...(list('9', [item('a', '1')]) as object),
        metadata: { resourceVersion: '9', continue: 'page2' },
      });
    });
    informer = new ResilientInformer({ kc: server.kc, path: PATH, pageSize: 1 });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(
      informer.list().map((o) => o.metadata?.name),
      ['a', 'b'],
    );
    assert.equal(server.requests[0]?.query.get('limit'), '1');
  });

  it('makes no more requests after stop, even with a restart pending', async () => {
    server = await startFakeApiServer((_req, res) =>
      sendJson(res, 500, kubeStatus(500, 'InternalError')),
    );
    informer = new ResilientInformer({
      kc: server.kc,
      path: PATH,
      restartBackoff: { baseMs: 30, maxMs: 30, jitter: 0 },
    });
    informer.start();
    await until(() => informer?.restarts === 1, 'the first failure');
    await informer.stop();
    const seen = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(server.requests.length, seen);
  });

  it('restarts when a list hangs past the list timeout', async () => {
    let lists = 0;
    server = await startFakeApiServer((req, res) => {
      if (req.query.get('watch') === 'true') return streamEvents(res, []);
      lists++;
      if (lists === 1) return; // never answers
      sendJson(res, 200, list('3', [item('a', '1')]));
    });
    informer = new ResilientInformer({
      kc: server.kc,
      path: PATH,
      listTimeoutMs: 300,
      restartBackoff: { baseMs: 5, maxMs: 5 },
    });
    informer.start();
    await informer.waitForSync(AbortSignal.timeout(10_000));
    // At least one restart: on a loaded machine the answering list may itself overrun the
    // timeout once more; without the timeout the first list would hang forever.
    assert.ok(informer.restarts >= 1, `restarts: ${informer.restarts}`);
    assert.equal(informer.get('a')?.metadata?.name, 'a');
  });

  it('rejects waitForSync when its signal aborts', async () => {
    server = await startFakeApiServer((_req, res) => sendJson(res, 500, kubeStatus(500, 'x')));
    informer = new ResilientInformer({
      kc: server.kc,
      path: PATH,
      restartBackoff: { baseMs: 1000 },
    });
    informer.start();
    await assert.rejects(informer.waitForSync(AbortSignal.timeout(20)));
  });
});
