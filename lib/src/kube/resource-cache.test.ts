import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { KubernetesObject } from '@kubernetes/client-node';
import { createLogger } from '../logger.js';
import { sendJson, startFakeApiServer, type FakeApiServer } from '../testing/fake-api-server.js';
import { ResourceCache } from './resource-cache.js';

const PATH = '/apis/aiplane.io/v1alpha1/tenantlifecycles';
const obj = (rv: string, extra: Record<string, unknown> = {}): KubernetesObject => ({
  apiVersion: 'aiplane.io/v1alpha1',
  kind: 'TenantLifecycle',
  metadata: { name: 'a', uid: 'uid-a', resourceVersion: rv, ...extra },
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 4000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ResourceCache (read-your-writes over a watch cache)', function () {
  let server: FakeApiServer | undefined;
  let cache: ResourceCache<KubernetesObject> | undefined;
  let watch: ServerResponse | undefined;
  let stored: KubernetesObject[] = [];

  beforeEach(async function () {
    stored = [obj('5')];
    server = await startFakeApiServer((req, res) => {
      if (req.query.get('watch') !== 'true') {
        // Pages as the apiserver does: `limit` items from the `continue` offset.
        const from = Number(req.query.get('continue') ?? 0);
        const limit = Number(req.query.get('limit') ?? stored.length) || stored.length;
        const next = from + limit < stored.length ? String(from + limit) : undefined;
        return sendJson(res, 200, {
          kind: 'TenantLifecycleList',
          metadata: { resourceVersion: '5', ...(next ? { continue: next } : {}) },
          items: stored.slice(from, from + limit),
        });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      watch = res; // held open; the test writes events into it
    });
    cache = new ResourceCache(server.kc, PATH, createLogger({ level: 'silent' }));
    cache.start();
    await cache.waitForSync();
    await until(() => watch !== undefined, 'the watch');
  });
  afterEach(async function () {
    watch?.end();
    await cache?.stop();
    await server?.close();
    watch = undefined;
  });

  const send = (type: string, o: KubernetesObject) =>
    watch?.write(`${JSON.stringify({ type, object: o })}\n`);

  it('shows its own write before the watch delivers it', async function () {
    cache?.remember(obj('6', { labels: { v: 'new' } }));
    assert.equal(cache?.list()[0]?.metadata?.resourceVersion, '6');
    assert.equal((await cache?.byUid('uid-a'))?.metadata?.resourceVersion, '6');
  });

  it('answers absent once an object it saw marked for deletion is gone from the watch', async function () {
    // The DELETE reply (marked, rv 6) is remembered; the object then goes before the watch
    // ever delivered rv 6: a stale overlay would show it for the whole remember window.
    cache?.remember(obj('6', { deletionTimestamp: '2026-11-22T10:00:00Z' }));
    stored = [];
    send('DELETED', obj('6', { deletionTimestamp: '2026-11-22T10:00:00Z' }));
    await until(() => cache?.list().length === 0, 'the deleted object to leave the list');
    assert.equal(await cache?.byUid('uid-a'), undefined);
  });

  it('reads through to the apiserver for an object its watch has not delivered yet', async function () {
    stored = [
      obj('5'),
      { ...obj('7'), metadata: { name: 'b', uid: 'uid-b', resourceVersion: '7' } },
    ];
    assert.equal((await cache?.byUid('uid-b'))?.metadata?.name, 'b');
  });

  it('tells its subscribers about an object the watch reports deleted, until they unsubscribe', async function () {
    const deleted: string[] = [];
    const off = cache?.onGone((o) => deleted.push(o.metadata?.uid ?? ''));
    send('DELETED', obj('6'));
    await until(() => deleted.length === 1, 'the delete handler');
    assert.deepEqual(deleted, ['uid-a']);
    off?.();
    send('ADDED', obj('7'));
    send('DELETED', obj('8'));
    await until(() => cache?.list().length === 0, 'the second deletion');
    assert.deepEqual(deleted, ['uid-a']);
  });

  it('counts an object replaced under its name by another uid as gone, an ordinary update not', async function () {
    const gone: [string, string | undefined][] = [];
    const off = cache?.onGone((o, replacement) =>
      gone.push([o.metadata?.uid ?? '', replacement?.metadata?.uid]),
    );
    send('MODIFIED', obj('6', { labels: { v: 'changed' } }));
    const replaced = obj('7');
    send('MODIFIED', { ...replaced, metadata: { ...replaced.metadata, uid: 'uid-b' } });
    await until(() => gone.length === 1, 'the replacement');
    assert.deepEqual(gone, [['uid-a', 'uid-b']]);
    off?.();
  });

  it('lists every page afresh from the apiserver, objects its watch has not delivered included', async function () {
    stored = Array.from({ length: 1201 }, (_, i) => ({
      ...obj('9'),
      metadata: { name: `t-${i}`, uid: `uid-${i}`, resourceVersion: '9' },
    }));
    const fresh = (await cache?.listFresh()) ?? [];
    assert.equal(fresh.length, 1201);
    assert.equal(new Set(fresh.map((o) => o.metadata?.uid)).size, 1201);
    assert.equal(cache?.list().length, 1, 'the watch cache itself is unchanged');
  });
});
