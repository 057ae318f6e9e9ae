import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { StatusMemory } from './status-memory.js';

type Obj = KubernetesObject & { spec?: unknown; status?: unknown };
const server = (resourceVersion: string, status?: unknown): Obj => ({
  metadata: { namespace: 'tenant-acme', name: 'github', resourceVersion },
  spec: { image: 'x' },
  ...(status === undefined ? {} : { status }),
});
const KEY = 'tenant-acme/github';

describe('StatusMemory', function () {
  it('knows the watch event of its own write by its version, and nothing else', function () {
    const m = new StatusMemory();
    assert.equal(m.writes.isEcho(server('8')), false, 'nothing written yet');
    m.begin(KEY);
    m.remember('7', server('8', { ready: true }));
    assert.equal(m.writes.isEcho(server('8')), true);
    assert.equal(m.writes.isEcho(server('9')), false, 'a later change by someone else');
    const other = { ...server('8'), metadata: { name: 'github', resourceVersion: '8' } };
    assert.equal(m.writes.isEcho(other), false, 'another object');
  });

  it('answers the object as written while the cache still shows the version written over', function () {
    const m = new StatusMemory();
    const stale = server('7', { ready: false });
    assert.equal(m.view(stale), stale, 'no write: the cached object');
    m.begin(KEY);
    m.remember('7', server('8', { ready: true }));
    assert.deepEqual(m.view(stale), server('8', { ready: true }));
    assert.deepEqual(stale, server('7', { ready: false }), 'the cached object is not changed');
    const newer = server('12', { ready: false });
    assert.equal(m.view(newer), newer, 'a cache past the write: the cached object');
    assert.equal(m.view(undefined), undefined);
    m.forget(KEY);
    assert.equal(m.view(stale), stale);
    assert.equal(m.writes.isEcho(server('8')), false);
    assert.equal(m.size, 0);
  });
});
