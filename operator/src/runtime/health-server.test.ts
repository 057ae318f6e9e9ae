import assert from 'node:assert/strict';
import { Counter, Registry } from 'prom-client';
import { type HealthServer, startHealthServer } from './health-server.js';

describe('startHealthServer', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(ready: () => boolean | Promise<boolean>) {
    const registry = new Registry();
    new Counter({ name: 'aiplane_test_total', help: 'test', registers: [registry] }).inc(3);
    server = await startHealthServer({ host: '127.0.0.1', port: 0, ready, registry });
    return `http://127.0.0.1:${server.port}`;
  }

  it('answers /healthz with 200 whatever readiness says', async () => {
    const base = await start(() => false);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  });

  it('answers /readyz from the ready callback, 200 or 503', async () => {
    let ready = false;
    const base = await start(() => Promise.resolve(ready));
    assert.equal((await fetch(`${base}/readyz`)).status, 503);
    ready = true;
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
  });

  it('answers 500 when the ready callback throws', async () => {
    const base = await start(() => {
      throw new Error('boom');
    });
    assert.equal((await fetch(`${base}/readyz`)).status, 500);
  });

  it('serves the registry in the Prometheus text format on /metrics', async () => {
    const base = await start(() => true);
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await res.text(), /^aiplane_test_total 3$/m);
  });

  it('answers 404 for other paths and stops listening on close', async () => {
    const base = await start(() => true);
    assert.equal((await fetch(`${base}/other`)).status, 404);
    await server?.close();
    server = undefined;
    await assert.rejects(fetch(`${base}/healthz`));
  });
});
