import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { V1Deployment } from '@kubernetes/client-node';
import { DISCOVER_REVISION, sdkHandshake } from './handshake.js';
import { planStatus } from './plan.js';

async function serve(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

describe('sdkHandshake (fake HTTP peers; the real SDK server is in it/mcp-runtime.test.ts)', () => {
  const handshake = sdkHandshake({ timeoutMs: 2_000 });
  let server: Server | undefined;
  const extra: Server[] = [];
  afterEach(() => {
    for (const s of [server, ...extra.splice(0)]) {
      s?.closeAllConnections();
      s?.close();
    }
  });

  it('falls back to server/discover for a server that speaks only the 2026-07-28 revision', async () => {
    const peer = await serve((req, body, res) => {
      const msg = JSON.parse(body || '{}') as { id?: number; method?: string };
      res.setHeader('content-type', 'application/json');
      if (msg.method === 'server/discover' && req.headers['mcp-method'] === 'server/discover') {
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            result: {
              serverInfo: { name: 'modern', version: '2.0' },
              protocolVersions: [DISCOVER_REVISION],
            },
          }),
        );
        return;
      }
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: msg.id ?? null,
          error: { code: -32601, message: 'Method not found' },
        }),
      );
    });
    server = peer.server;
    const r = await handshake(peer.url);
    assert.deepEqual(r, {
      ok: true,
      protocolVersion: DISCOVER_REVISION,
      serverName: 'modern',
      serverVersion: '2.0',
    });
  });

  it('fails with a readable reason when the peer answers HTML', async () => {
    const peer = await serve((_req, _body, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>hello</body></html>');
    });
    server = peer.server;
    const r = await handshake(peer.url);
    assert.equal(r.ok, false);
    assert.match(
      !r.ok ? r.message : '',
      /^MCP handshake with http:\/\/127\.0\.0\.1:\d+\/mcp failed: /,
    );
  });

  it('accepts a 401 with a Bearer challenge as an MCP protected resource', async () => {
    const peer = await serve((_req, _body, res) => {
      res.statusCode = 401;
      res.setHeader(
        'www-authenticate',
        'Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"',
      );
      res.end('{}');
    });
    server = peer.server;
    assert.deepEqual(await handshake(peer.url), { ok: true, authenticationRequired: true });
  });

  it('refuses a 401 without a Bearer challenge, naming only the status (never the peer’s text)', async () => {
    const peer = await serve((_req, _body, res) => {
      res.statusCode = 401;
      res.end(`go away ${Math.random()}`);
    });
    server = peer.server;
    const r = await handshake(peer.url);
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /failed: HTTP 401$/);
  });

  it('does not follow a redirect: its target sees no request, and the message says why', async () => {
    let targetRequests = 0;
    const target = await serve((_req, _body, res) => {
      targetRequests += 1;
      res.statusCode = 404;
      res.end();
    });
    extra.push(target.server);
    for (const status of [302, 307, 308]) {
      const peer = await serve((_req, _body, res) => {
        res.statusCode = status;
        res.setHeader('location', target.url);
        res.end();
      });
      extra.push(peer.server);
      const r = await handshake(peer.url);
      assert.equal(r.ok, false);
      assert.match(
        !r.ok ? r.message : '',
        new RegExp(
          `failed: it answered with a redirect \\(HTTP ${status}\\), which the operator does not follow$`,
        ),
      );
    }
    assert.equal(targetRequests, 0, 'the redirect target was called');
  });

  it('keeps the McpHandshake condition within 1 KiB for a server whose name and version are 10 KiB each', async () => {
    // A real SDK server over Streamable HTTP (stateless), announcing a huge serverInfo.
    const peer = await serve((req, body, res) => {
      const mcp = new McpServer(
        { name: `n${'é'.repeat(5_120)}`, version: 'v'.repeat(10_240) },
        { capabilities: {} },
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      void mcp
        .connect(transport)
        .then(() =>
          transport.handleRequest(req, res, body ? (JSON.parse(body) as unknown) : undefined),
        );
    });
    server = peer.server;
    const r = await handshake(peer.url);
    assert.equal(
      r.ok && 'serverName' in r ? r.serverName.length : 0,
      5_121,
      'the handshake went through',
    );
    const deployment: V1Deployment = {
      metadata: { generation: 1 },
      status: {
        observedGeneration: 1,
        replicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        updatedReplicas: 1,
        conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }],
      },
    };
    const status = planStatus(
      { generation: 1, previous: undefined, deployment, url: peer.url, handshake: r },
      new Date(),
    );
    const condition = status.conditions?.find((c) => c.type === 'McpHandshake');
    assert.equal(condition?.reason, 'HandshakeSucceeded');
    const message = condition?.message ?? '';
    assert.ok(Buffer.byteLength(message, 'utf8') <= 1024, `${Buffer.byteLength(message)} bytes`);
    assert.match(message, /^né+…$/);
  });

  it('fails with "connection refused" when nothing listens', async () => {
    const peer = await serve(() => undefined);
    const url = peer.url;
    await new Promise<void>((r) => peer.server.close(() => r()));
    const r = await handshake(url);
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /connection refused/);
  });
});
