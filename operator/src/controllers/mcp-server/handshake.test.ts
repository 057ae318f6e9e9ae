import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DISCOVER_REVISION, sdkHandshake } from './handshake.js';

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
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
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

  it('fails with "connection refused" when nothing listens', async () => {
    const peer = await serve(() => undefined);
    const url = peer.url;
    await new Promise<void>((r) => peer.server.close(() => r()));
    const r = await handshake(url);
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /connection refused/);
  });
});
