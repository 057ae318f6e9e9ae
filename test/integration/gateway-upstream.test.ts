import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@aiplane/hack';
import { call, ORG_SCOPE, tokenFor, type Reply } from './api-helpers.js';
import { startGatewayStack, type GatewayStack } from './fixtures/index.js';
import { startTestGateway, type RpcError, type TestGateway } from './gateway-helpers.js';
import { link, randomId, registerRemote } from './mcp-helpers.js';
import { rememberSecret } from './secrets.js';

type ToolsList = { id: unknown; result: { tools: { name: string }[] } };

const SMALL_TIMEOUT_MS = 2000;

/** One request the bare upstream received. */
interface Seen {
  method: string;
  id: unknown;
  /** Its connection closed before its answer was complete (the gateway gave up on it). */
  closed: boolean;
}

const listing = (id: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [{ name: 'echo' }, { name: 'add' }] } });

/**
 * A bare HTTP upstream (no MCP SDK: it answers what a misbehaving server would), whose answer
 * each test picks by the JSON-RPC method, or by the cursor of a tools/list.
 */
async function startBareUpstream() {
  const seen: Seen[] = [];
  const answer = (res: ServerResponse, method: string, id: unknown, cursor: unknown) => {
    const json = (body: string, headers: Record<string, string> = {}) =>
      res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
    const sse = () => res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (method === 'initialize') {
      return json(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion: '2025-03-26',
            capabilities: { tools: {} },
            serverInfo: { name: 'bare', version: '1' },
          },
        }),
      );
    }
    if (method.startsWith('notifications/')) return res.writeHead(202).end();
    if (method === 'test/hang') return undefined; // never answers
    if (method === 'test/stall') {
      // One event, then silence with the stream open.
      sse().write('data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n');
      return undefined;
    }
    if (method === 'test/huge') {
      // 100 MiB of JSON, written as fast as the reader takes it, until it stops reading.
      const mib = Buffer.alloc(1024 * 1024, 'x');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"pad":"`);
      let sent = 0;
      const pump = () => {
        while (sent < 100 && !res.destroyed) {
          sent += 1;
          if (!res.write(mib)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end('"}}');
      };
      pump();
      return undefined;
    }
    if (method === 'test/many') {
      sse();
      let n = 0;
      const pump = () => {
        while (n < 100_000) {
          const event = `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${n}}}\n\n`;
          n += 1;
          if (!res.write(event)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n\n`);
      };
      pump();
      return undefined;
    }
    if (method === 'test/headers') {
      return json(JSON.stringify({ jsonrpc: '2.0', id, result: {} }), {
        'cache-control': 'public, max-age=3600',
        'set-cookie': 'upstream-session=secret; Path=/',
      });
    }
    if (method === 'tools/list' && cursor === 'cr') {
      // CR-only line endings, as the SSE standard allows; a comment first.
      return sse().end(`: hello\revent: message\rid: 7\rdata: ${listing(id)}\r\r`);
    }
    if (method === 'tools/list' && cursor === 'batch-json') {
      return json(`[${listing(id)},${listing(id)}]`);
    }
    if (method === 'tools/list' && cursor === 'bom') {
      // A byte-order mark: JSON.parse refuses it, a client's response.json() strips it.
      return json(`\uFEFF${listing(id)}`);
    }
    if (method === 'tools/list' && cursor === 'batch-sse') {
      return sse().end(`data: [${listing(id)},${listing(id)}]\n\n`);
    }
    if (method === 'tools/list') return json(listing(id));
    return json(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
  };
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { method?: unknown; id?: unknown; params?: { cursor?: unknown } } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        // answered as an unknown method
      }
      const method = typeof body.method === 'string' ? body.method : '';
      const entry: Seen = { method, id: body.id, closed: false };
      seen.push(entry);
      // On the response, not the keep-alive socket (one listener per request piled up there).
      res.on('close', () => {
        if (!res.writableFinished) entry.closed = true;
      });
      answer(res, method, body.id, body.params?.cursor);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    seen,
    /** The request of `method` with JSON-RPC id `id`, once it arrived. */
    request: (method: string, id: unknown) => seen.find((s) => s.method === method && s.id === id),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('MCP gateway against a bare upstream: timeouts, buffering, event streams, headers', function () {
  let stack: GatewayStack | undefined;
  let upstream: Awaited<ReturnType<typeof startBareUpstream>>;
  /** A second gateway of the stack, with the default (long) timeouts. */
  let relaxed: TestGateway | undefined;
  let serverId: string;
  const credential = `bare-upstream-${randomId()}`;
  rememberSecret(credential);

  const endpoint = (gateway: TestGateway) => `${gateway.url}/servers/${serverId}/mcp`;
  const headers = async (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${await tokenFor('member', ORG_SCOPE)}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...extra,
  });
  const rpc = async (body: unknown, extra: Record<string, string> = {}): Promise<Reply> =>
    call(endpoint(stack!.gateway), { method: 'POST', body, headers: await headers(extra) });
  const request = (id: number, method: string, params: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method,
    params,
  });
  /** The `data` of each event of an event stream the gateway wrote (LF line endings). */
  const events = (text: string): string[] =>
    text
      .split('\n\n')
      .filter((block) => block.includes('data:'))
      .map((block) =>
        block
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n'),
      );

  before(async function () {
    this.timeout(240_000);
    upstream = await startBareUpstream();
    stack = await startGatewayStack('gateway-upstream', 'gwup', {
      AIPLANE_GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: String(SMALL_TIMEOUT_MS),
      AIPLANE_GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: String(SMALL_TIMEOUT_MS),
    });
    relaxed = await startTestGateway(stack.api, 'gateway-upstream-defaults', {
      AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true',
    });
    serverId = await registerRemote(stack.admin, {
      name: 'bare',
      display_name: 'Bare',
      address: upstream.url,
      tool_allowlist: ['echo'],
    });
    await link(stack.member, serverId, credential);
  });

  after(async function () {
    await relaxed?.close();
    await stack?.close();
    await upstream?.close();
  });

  describe('timeouts', function () {
    it('answers 504 with JSON-RPC -32010 mcp_server_timeout when the upstream sends no headers in time, and closes its connection', async function () {
      const r = await rpc(request(101, 'test/hang'));
      assert.equal(r.status, 504, r.text);
      const body = r.json() as RpcError;
      assert.equal(body.id, 101);
      assert.equal(body.error.code, -32010);
      assert.equal(body.error.data?.code, 'mcp_server_timeout');
      await waitFor('the upstream connection to close', async () =>
        Promise.resolve(upstream.request('test/hang', 101)?.closed === true),
      );
    });

    it('ends an event stream the upstream stops feeding with a -32010 error event for the request, and closes its connection', async function () {
      const r = await fetch(endpoint(stack!.gateway), {
        method: 'POST',
        headers: await headers(),
        body: JSON.stringify(request(102, 'test/stall')),
        signal: AbortSignal.timeout(60_000),
      });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
      // Resolves only when the gateway ends the stream.
      const data = events(await r.text());
      assert.equal(data.length, 2, `events: ${JSON.stringify(data)}`);
      assert.deepEqual(JSON.parse(data[0]!), {
        jsonrpc: '2.0',
        method: 'notifications/progress',
      });
      const last = JSON.parse(data[1]!) as RpcError;
      assert.equal(last.id, 102);
      assert.equal(last.error.code, -32010);
      assert.equal(last.error.data?.code, 'mcp_server_timeout');
      await waitFor('the upstream connection to close', async () =>
        Promise.resolve(upstream.request('test/stall', 102)?.closed === true),
      );
    });

    it('aborts the upstream request as soon as the client goes away (the upstream sees its socket close)', async function () {
      // The default timeouts (60 s for headers): only the client leaving can close it now.
      const client = new AbortController();
      const pending = fetch(endpoint(relaxed!), {
        method: 'POST',
        headers: await headers(),
        body: JSON.stringify(request(103, 'test/hang')),
        signal: client.signal,
      }).catch((err: unknown) => err);
      await waitFor('the upstream to receive the request', async () =>
        Promise.resolve(upstream.request('test/hang', 103) !== undefined),
      );
      assert.equal(upstream.request('test/hang', 103)?.closed, false);
      client.abort();
      await pending;
      await waitFor(
        'the upstream connection to close',
        async () => Promise.resolve(upstream.request('test/hang', 103)?.closed === true),
        { timeoutMs: 10_000 },
      );
    });
  });

  describe('buffering', function () {
    it('refuses a 100 MiB JSON answer it must filter with 502 and JSON-RPC -32011 mcp_server_response_too_large, and serves the next request', async function () {
      const r = await rpc(request(201, 'test/huge'));
      assert.equal(r.status, 502, r.text.slice(0, 200));
      const body = r.json() as RpcError;
      assert.equal(body.id, 201);
      assert.equal(body.error.code, -32011);
      assert.equal(body.error.data?.code, 'mcp_server_response_too_large');
      await waitFor('the upstream connection to close', async () =>
        Promise.resolve(upstream.request('test/huge', 201)?.closed === true),
      );
      const next = await rpc(request(202, 'tools/list'));
      assert.equal(next.status, 200, next.text);
      assert.deepEqual(
        (next.json() as ToolsList).result.tools.map((t) => t.name),
        ['echo'],
      );
    });

    it('passes a stream of 100 000 events through intact', async function () {
      this.timeout(180_000);
      const r = await fetch(endpoint(stack!.gateway), {
        method: 'POST',
        headers: await headers(),
        body: JSON.stringify(request(203, 'test/many')),
      });
      assert.equal(r.status, 200);
      const data = events(await r.text());
      assert.equal(data.length, 100_001);
      const numbers = data
        .slice(0, 100_000)
        .map((d) => (JSON.parse(d) as { params: { data: number } }).params.data);
      assert.ok(
        numbers.every((n, i) => n === i),
        'every event, in order',
      );
      assert.deepEqual(JSON.parse(data[100_000]!), { jsonrpc: '2.0', id: 203, result: {} });
    });
  });

  describe('the allowlist on what a conforming parser reads (CR line endings, batches)', function () {
    it('filters a tools listing in CR-delimited events', async function () {
      const r = await rpc(request(301, 'tools/list', { cursor: 'cr' }));
      assert.equal(r.status, 200, r.text);
      assert.doesNotMatch(r.text, /"add"/);
      const data = events(r.text);
      assert.equal(data.length, 1, r.text);
      const list = JSON.parse(data[0]!) as ToolsList;
      assert.equal(list.id, 301);
      assert.deepEqual(
        list.result.tools.map((t) => t.name),
        ['echo'],
      );
      assert.match(r.text, /id: 7\n/, 'the event id is kept');
    });

    it('filters a batched (JSON-RPC array) tools listing, as a JSON body and as one event', async function () {
      for (const cursor of ['batch-json', 'batch-sse']) {
        const r = await rpc(request(302, 'tools/list', { cursor }));
        assert.equal(r.status, 200, r.text);
        assert.doesNotMatch(r.text, /"add"/, cursor);
        const json = cursor === 'batch-json' ? r.text : events(r.text)[0]!;
        const batch = JSON.parse(json) as ToolsList[];
        assert.deepEqual(
          batch.map((m) => m.result.tools.map((t) => t.name)),
          [['echo'], ['echo']],
          cursor,
        );
      }
    });
  });

  describe('what the gateway cannot read, with an allowlist', function () {
    it('refuses a JSON listing behind a byte-order mark (503 mcp_server_unreachable) instead of passing it on unfiltered', async function () {
      const r = await rpc(request(303, 'tools/list', { cursor: 'bom' }));
      assert.equal(r.status, 503, r.text);
      assert.doesNotMatch(r.text, /"add"/);
      const body = JSON.parse(r.text) as { id: unknown; error: { data: { code: string } } };
      assert.equal(body.id, 303);
      assert.equal(body.error.data.code, 'mcp_server_unreachable');
    });

    it('passes an empty 202 (a notification) through', async function () {
      const r = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal(r.status, 202, r.text);
      assert.equal(r.text, '');
    });
  });

  describe('headers', function () {
    it('answers Cache-Control: no-store and passes neither the upstream’s Cache-Control nor its Set-Cookie', async function () {
      const r = await rpc(request(401, 'test/headers'));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.equal(r.headers.get('set-cookie'), null);
      // Refusals too.
      const refused = await call(`${stack!.gateway.url}/servers/${randomId()}/mcp`, {
        method: 'POST',
        body: request(402, 'tools/list'),
        headers: await headers(),
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('cache-control'), 'no-store');
    });

    it('refuses Mcp-Method or Mcp-Name that disagree with the body with HTTP 400 and -32020, forwarding nothing', async function () {
      const revision = { 'mcp-protocol-version': '2026-07-28' };
      const cases: [unknown, Record<string, string>][] = [
        [
          request(403, 'tools/call', { name: 'echo', arguments: {} }),
          { 'mcp-method': 'tools/call', 'mcp-name': 'add' },
        ],
        [
          request(404, 'tools/call', { name: 'echo', arguments: {} }),
          { 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${btoa('add')}?=` },
        ],
        [request(405, 'tools/list'), { 'mcp-method': 'tools/call', 'mcp-name': 'add' }],
      ];
      for (const [body, extra] of cases) {
        const r = await rpc(body, { ...revision, ...extra });
        assert.equal(r.status, 400, r.text);
        const refused = r.json() as RpcError;
        assert.equal(refused.id, (body as { id: number }).id);
        assert.equal(refused.error.code, -32020);
      }
      for (const id of [403, 404, 405]) {
        assert.equal(
          upstream.seen.find((s) => s.id === id),
          undefined,
          `request ${id} reached the upstream`,
        );
      }
      // Headers that agree pass.
      const ok = await rpc(request(406, 'tools/list'), { ...revision, 'mcp-method': 'tools/list' });
      assert.equal(ok.status, 200, ok.text);
    });
  });
});
