import assert from 'node:assert/strict';
import { type HealthServer, type MetricsRegistry, startHealthServer } from './health-server.js';

/** A registry as prom-client's serves it: one counter at 3, in the Prometheus text format. */
const registry: MetricsRegistry = {
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  metrics: () =>
    Promise.resolve(
      '# HELP aiplane_test_total test\n# TYPE aiplane_test_total counter\naiplane_test_total 3\n',
    ),
};

describe('startHealthServer', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(ready?: () => boolean | Promise<boolean>) {
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

  it('serves only /metrics without a ready callback (a metrics port)', async function () {
    const base = await start();
    assert.equal((await fetch(`${base}/metrics`)).status, 200);
    assert.equal((await fetch(`${base}/healthz`)).status, 404);
    assert.equal((await fetch(`${base}/readyz`)).status, 404);
    assert.equal((await fetch(`${base}/`)).status, 404);
  });
});
