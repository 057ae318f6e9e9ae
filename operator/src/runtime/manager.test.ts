import assert from 'node:assert/strict';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { Controller } from './controller.js';
import { type ManagerHandle, runManager } from './manager.js';
import { FakeInformer } from './testing/fake-informer.js';
import { MemoryLeases } from './testing/memory-leases.js';

const silent = pino({ level: 'silent' });
const FAST_ELECTION = {
  namespace: 'aiplane-system',
  name: 'aiplane-operator',
  leaseDurationSeconds: 1,
  renewDeadlineMs: 150,
  retryPeriodMs: 20,
};

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function replica(informer: FakeInformer<KubernetesObject>, reconciled: string[], identity: string) {
  const registry = new Registry();
  const controller = new Controller({
    name: 'tenantlifecycle',
    primary: informer,
    reconcile: (key) => {
      reconciled.push(`${identity}:${key}`);
      return Promise.resolve();
    },
    registry,
    logger: silent,
  });
  return { registry, controller };
}

async function status(handle: ManagerHandle, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${handle.port}${path}`)).status;
}

describe('runManager', () => {
  const handles: ManagerHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.stop()));
  });

  it('starts informers at once, is ready once they sync, reconciles, and stops cleanly', async () => {
    const informer = new FakeInformer<KubernetesObject>('tenantlifecycles');
    const reconciled: string[] = [];
    const { registry, controller } = replica(informer, reconciled, 'solo');
    const handle = await runManager({
      kc: new KubeConfig(),
      controllers: [controller],
      health: { host: '127.0.0.1', port: 0 },
      logger: silent,
      registry,
      signals: [],
    });
    handles.push(handle);
    assert.equal(informer.started, true);
    assert.equal(await status(handle, '/readyz'), 503);
    informer.put({ metadata: { name: 'acme', resourceVersion: '1' } });
    informer.markSynced();
    await until(() => reconciled.length === 1, 'the reconcile');
    assert.equal(await status(handle, '/readyz'), 200);
    assert.equal(await status(handle, '/healthz'), 200);

    assert.equal(await handle.stop(), 'stopped');
    assert.equal(await handle.done, 'stopped');
    assert.equal(informer.started, false);
    await assert.rejects(fetch(`http://127.0.0.1:${handle.port}/healthz`));
  });

  it('reconciles only on the leader and hands over to the standby when the leader stops', async () => {
    const leases = new MemoryLeases();
    const reconciled: string[] = [];
    const start = async (identity: string) => {
      const informer = new FakeInformer<KubernetesObject>('tenantlifecycles');
      informer.put({ metadata: { name: 'acme', resourceVersion: '1' } });
      informer.markSynced();
      const { registry, controller } = replica(informer, reconciled, identity);
      const handle = await runManager({
        kc: new KubeConfig(),
        controllers: [controller],
        leaderElection: { ...FAST_ELECTION, identity },
        leases,
        health: { host: '127.0.0.1', port: 0 },
        logger: silent,
        registry,
        signals: [],
      });
      handles.push(handle);
      return handle;
    };
    const a = await start('a');
    await until(() => a.isLeader(), 'a leading');
    const b = await start('b');
    await until(() => reconciled.length === 1, 'the leader reconcile');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(reconciled, ['a:acme']);
    assert.equal(await status(b, '/readyz'), 200, 'a healthy standby is ready');

    await a.stop();
    assert.equal(leases.lease?.spec?.holderIdentity === 'a', false, 'lease released');
    await until(() => reconciled.length === 2, 'the standby taking over');
    assert.deepEqual(reconciled, ['a:acme', 'b:acme']);
    assert.equal(b.isLeader(), true);
  });

  it('stops with lost-leadership when the lease cannot be renewed', async () => {
    const leases = new MemoryLeases();
    const informer = new FakeInformer<KubernetesObject>('tenantlifecycles');
    informer.markSynced();
    const { registry, controller } = replica(informer, [], 'a');
    const handle = await runManager({
      kc: new KubeConfig(),
      controllers: [controller],
      leaderElection: { ...FAST_ELECTION, identity: 'a' },
      leases,
      health: { host: '127.0.0.1', port: 0 },
      logger: silent,
      registry,
      signals: [],
    });
    handles.push(handle);
    await until(() => handle.isLeader(), 'leadership');
    leases.failing = true;
    assert.equal(await handle.done, 'lost-leadership');
    assert.equal(handle.ready(), false);
  });

  it('counts informer restarts per resource', async () => {
    const informer = new FakeInformer<KubernetesObject>('mcpservers');
    const { registry, controller } = replica(informer, [], 'solo');
    const handle = await runManager({
      kc: new KubeConfig(),
      controllers: [controller],
      health: { host: '127.0.0.1', port: 0 },
      logger: silent,
      registry,
      signals: [],
    });
    handles.push(handle);
    informer.failWatch(new Error('watch failed'));
    informer.failWatch(new Error('watch failed'));
    assert.match(
      await registry.metrics(),
      /aiplane_watch_restarts_total\{resource="mcpservers"\} 2/,
    );
  });
});
