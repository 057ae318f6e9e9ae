import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@aiplane/lib';
import type { Authenticator, Principal } from '@aiplane/lib/auth';
import { createGatewayApp, type GatewayAppDeps } from './app.js';
import { GatewayLimiter } from './limits.js';
import { gatewayMetrics, type GatewayMetrics } from './metrics.js';

const member: Principal = {
  userId: '4f0c3a52-1d5e-4d0e-9b1a-6f8a2c7d9e10',
  roles: new Set(['can_access_api']),
  organizations: [],
  via: 'jwt',
};

/**
 * The gateway's refusals that need nothing behind it: the path, the body and the server id
 * are refused before a cache, the credential store or an upstream is consulted.
 */
describe('gateway refusals (no platform behind it)', () => {
  let server: Server;
  let base: string;
  let metrics: GatewayMetrics;

  before(async () => {
    metrics = gatewayMetrics();
    const deps = {
      logger: createLogger({ level: 'silent' }),
      authenticator: { authenticate: () => Promise.resolve(member) } as unknown as Authenticator,
      ready: () => Promise.resolve(true),
      metrics,
      limiter: new GatewayLimiter({
        requestsPerUser: 32,
        requestsPerOrganization: 256,
        sessionsPerUser: 64,
        sessionsPerOrganization: 1024,
        sessionIdleSeconds: 1800,
      }),
    } as Partial<GatewayAppDeps> as GatewayAppDeps;
    server = createServer(createGatewayApp(deps));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const refusals = async (code: string): Promise<number> =>
    (await metrics.refusals.get()).values.find((v) => v.labels.code === code)?.value ?? 0;

  const post = (path: string, body: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
    });

  it('answers a path that is not valid percent-encoding with 400 bad_request, as the API does', async () => {
    const r = await post('/servers/%ZZ/mcp', '{"jsonrpc":"2.0","id":1,"method":"ping"}');
    assert.equal(r.status, 400);
    assert.equal(
      await r.text(),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"the path is not valid percent-encoding","data":{"code":"bad_request"}}}',
    );
    assert.equal(await refusals('bad_request'), 1);
  });

  it('answers Cache-Control: no-store on every answer, refusals and unknown paths included', async () => {
    for (const path of ['/servers/not-a-uuid/mcp', '/elsewhere']) {
      const r = await post(path, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
      assert.equal(r.headers.get('cache-control'), 'no-store', path);
    }
  });

  it('answers a body over 4 MiB with 413 request_too_large and counts the refusal', async () => {
    const before = await refusals('request_too_large');
    const r = await post(
      '/servers/not-a-uuid/mcp',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: { pad: 'x'.repeat(4_300_000) },
      }),
    );
    assert.equal(r.status, 413);
    const body = (await r.json()) as { id: unknown; error: { data: { code: string } } };
    assert.deepEqual([body.id, body.error.data.code], [null, 'request_too_large']);
    assert.equal(await refusals('request_too_large'), before + 1);
  });

  it('answers a refusal with the first request id of the body, null when it has none', async () => {
    const cases: [string, unknown][] = [
      ['{"jsonrpc":"2.0","id":9,"method":"initialize"}', 9],
      [
        '[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"}]',
        'b',
      ],
      ['{"jsonrpc":"2.0","method":"notifications/initialized"}', null],
      ['not json', null],
    ];
    for (const [body, id] of cases) {
      const r = await post('/servers/not-a-uuid/mcp', body);
      assert.equal(r.status, 403, body);
      const answer = (await r.json()) as {
        id: unknown;
        error: { code: number; data: { code: string } };
      };
      assert.deepEqual(
        [answer.id, answer.error.code, answer.error.data.code],
        [id, -32002, 'mcp_server_access_denied'],
        body,
      );
    }
  });

  it('answers other paths 404 route_not_found', async () => {
    const r = await post('/elsewhere', '{}');
    assert.equal(r.status, 404);
    assert.equal(
      ((await r.json()) as { error: { data: { code: string } } }).error.data.code,
      'route_not_found',
    );
  });
});
