import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpTestServer, waitFor, type McpTestServer } from '@aiplane/hack';
import { call, keycloak, ORG_SCOPE, tokenFor, type Reply, type TestApi } from './api-helpers.js';
import {
  caller,
  provisionTenant,
  setMembership,
  startGatewayStack,
  type GatewayStack,
  type Tenant,
} from './fixtures/index.js';
import { initializeRequest, type RpcError } from './gateway-helpers.js';
import { setPermissionsIn } from './keycloak-admin.js';
import { link, randomId } from './mcp-helpers.js';
import { rememberSecret } from './secrets.js';

describe('MCP gateway (real SDK client → gateway → real SDK server, Keycloak tokens)', function () {
  let stack: GatewayStack | undefined;
  let api: TestApi;
  let gatewayUrl: string;
  let gatewayMetricsPort: number;
  let upstream: McpTestServer;
  let a: Tenant;
  let b: Tenant;
  let serverId: string;
  /** A server of `a` created with `tool_allowlist: []`, which permits every tool. */
  let openServerId: string;
  /** A server of `b`, an organization the member does not belong to. */
  let foreignServerId: string;
  const memberCredential = `member-upstream-${randomId()}`;
  rememberSecret(memberCredential);

  const endpoint = (id = serverId) => `${gatewayUrl}/servers/${id}/mcp`;
  const bearer = async (user: 'member' | 'admin' = 'member') =>
    `Bearer ${await tokenFor(user, ORG_SCOPE)}`;
  const rpc = async (
    body: unknown,
    headers: Record<string, string> = {},
    id = serverId,
    user: 'member' | 'admin' = 'member',
  ): Promise<Reply> =>
    call(endpoint(id), {
      method: 'POST',
      body,
      headers: {
        authorization: await bearer(user),
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
  const connect = async (user: 'member' | 'admin' = 'member', id = serverId) => {
    const client = new Client({ name: 'it-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint(id)), {
      requestInit: { headers: { authorization: await bearer(user) } },
    });
    await client.connect(transport);
    return { client, transport };
  };

  before(async function () {
    this.timeout(240_000);
    upstream = await startMcpTestServer({
      token: memberCredential,
      tools: [{ name: 'search', title: 'Search', description: 'Finds documents' }],
    });
    stack = await startGatewayStack('gateway', 'gw');
    const { gateway, admin, member } = stack;
    ({ api, a } = stack);
    gatewayUrl = gateway.url;
    gatewayMetricsPort = gateway.metricsPort;
    b = await provisionTenant(api.url, 'gw-b');
    const r = await admin('POST', '/v1/mcp/servers', {
      runtime: 'remote',
      name: 'docs',
      display_name: 'Docs',
      address: upstream.url,
      // `ghost` is allowed but the upstream does not offer it.
      tool_allowlist: ['echo', 'search', 'ghost'],
    });
    assert.equal(r.status, 200, r.text);
    serverId = (r.json() as { id: string }).id;
    await link(member, serverId, memberCredential);
    const open = await admin('POST', '/v1/mcp/servers', {
      runtime: 'remote',
      name: 'open',
      display_name: 'Open',
      address: upstream.url,
      tool_allowlist: [],
    });
    assert.equal(open.status, 200, open.text);
    openServerId = (open.json() as { id: string }).id;
    await link(member, openServerId, memberCredential);
    // The platform admin may act in b without being a member; the member of a is not one of b.
    const foreign = await caller(api.url, 'admin', b.organizationId)('POST', '/v1/mcp/servers', {
      runtime: 'remote',
      name: 'foreign',
      display_name: 'Foreign',
      address: upstream.url,
    });
    assert.equal(foreign.status, 200, foreign.text);
    foreignServerId = (foreign.json() as { id: string }).id;
    // The gateway knows the server once the platform admin (who may use any organization's
    // server) is past the access check: no credential linked (-32003), not access denied.
    await waitFor('the gateway to know the foreign server', async () => {
      const r = await rpc(initializeRequest(), {}, foreignServerId, 'admin');
      return (r.json() as RpcError).error.code === -32003;
    });
  });

  after(async function () {
    await stack?.close();
    await upstream?.close();
  });

  it('initializes and lists only the allowed tools (2025-11-25, SSE answers rewritten)', async function () {
    const { client, transport } = await connect();
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['echo', 'search']);
      assert.ok(transport.sessionId, 'the gateway passes a session id');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('lists every upstream tool for a server whose tool_allowlist is [] (it permits every tool)', async function () {
    const direct = new Client({ name: 'it-direct', version: '1.0.0' });
    const directTransport = new StreamableHTTPClientTransport(new URL(upstream.url), {
      requestInit: { headers: { authorization: `Bearer ${memberCredential}` } },
    });
    await direct.connect(directTransport);
    let offered: string[];
    try {
      offered = (await direct.listTools()).tools.map((t) => t.name).sort();
    } finally {
      await directTransport.terminateSession();
      await direct.close();
    }
    assert.deepEqual(offered, ['add', 'echo', 'search'], 'what the upstream offers');
    const { client, transport } = await connect('member', openServerId);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), offered);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('calls an allowed tool with the member’s own credential, never their platform token', async function () {
    upstream.seenAuthorization.length = 0;
    const { client, transport } = await connect();
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hello' }]);
      assert.ok(upstream.seenAuthorization.length > 0);
      assert.ok(upstream.seenAuthorization.every((h) => h === `Bearer ${memberCredential}`));
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('answers a disallowed, a nonexistent and an allowed-but-absent tool call byte-identically: 200, -32602 Unknown tool', async function () {
    const session = await rpc(initializeRequest());
    const sid = session.headers.get('mcp-session-id') ?? '';
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const disallowed = await rpc(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 1, b: 2 } },
      },
      headers,
    );
    assert.equal(disallowed.status, 200);
    assert.equal(
      disallowed.text,
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: add"}}',
    );
    const nonexistent = await rpc(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'nope', arguments: {} } },
      headers,
    );
    assert.equal(nonexistent.status, 200);
    assert.equal(
      nonexistent.text,
      disallowed.text.replace('Unknown tool: add', 'Unknown tool: nope'),
    );
    assert.equal((nonexistent.json() as RpcError).error.data, undefined, 'no data');
    const allowedButAbsent = await rpc(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ghost', arguments: {} } },
      headers,
    );
    assert.equal(allowedButAbsent.status, 200);
    assert.equal(
      allowedButAbsent.text,
      disallowed.text.replace('Unknown tool: add', 'Unknown tool: ghost'),
    );
  });

  describe('what the gateway cannot check is refused, never forwarded', function () {
    const initialized = async () => {
      const init = await rpc(initializeRequest('2025-03-26'));
      const headers = {
        'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
        'mcp-protocol-version': '2025-03-26',
      };
      await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      return headers;
    };

    it('answers -32700 to a body with a byte-order mark (an upstream would strip it and run the call)', async function () {
      const headers = await initialized();
      const mark = upstream.seenAuthorization.length;
      const body = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 5,
            method: 'tools/call',
            params: { name: 'add', arguments: { a: 1, b: 2 } },
          }),
        ),
      ]);
      const r = await fetch(endpoint(), {
        method: 'POST',
        body,
        headers: {
          authorization: await bearer(),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      });
      assert.equal(r.status, 400);
      assert.equal(((await r.json()) as RpcError).error.code, -32700);
      assert.equal(upstream.seenAuthorization.length, mark, 'nothing reached the upstream');
    });

    it('answers Unknown tool to a tools/call whose name is not a string', async function () {
      const headers = await initialized();
      const mark = upstream.seenAuthorization.length;
      const r = await rpc(
        { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: ['add'] } },
        headers,
      );
      assert.equal(r.status, 200);
      assert.equal((r.json() as RpcError).error.code, -32602);
      // The spec's `Unknown tool: <name>`, the name as the JSON it was sent as; no data.
      const body = r.json() as RpcError;
      assert.equal(body.error.message, 'Unknown tool: ["add"]');
      assert.equal(body.error.data, undefined, 'no data');
      assert.equal(
        r.text,
        '{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Unknown tool: [\\"add\\"]"}}',
      );
      assert.equal(upstream.seenAuthorization.length, mark, 'nothing reached the upstream');
    });

    it('answers every request of a batch that calls a refused tool, forwarding none (2025-03-26)', async function () {
      const headers = await initialized();
      const mark = upstream.seenAuthorization.length;
      const r = await rpc(
        [
          {
            jsonrpc: '2.0',
            id: 10,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: 'x' } },
          },
          {
            jsonrpc: '2.0',
            id: 11,
            method: 'tools/call',
            params: { name: 'add', arguments: { a: 1, b: 2 } },
          },
        ],
        headers,
      );
      assert.equal(r.status, 200, r.text);
      const answers = r.json() as RpcError[];
      assert.deepEqual(
        answers.map((x) => [x.id, x.error.code]),
        [
          [10, -32600],
          [11, -32602],
        ],
      );
      assert.equal(answers[1]?.error.message, 'Unknown tool: add');
      assert.equal(upstream.seenAuthorization.length, mark, 'nothing reached the upstream');
    });

    it('answers 413 to a body over 4 MiB', async function () {
      const r = await rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: { pad: 'x'.repeat(4_300_000) },
      });
      assert.equal(r.status, 413);
      assert.equal((r.json() as RpcError).error.data?.code, 'request_too_large');
    });
  });

  for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`negotiates revision ${revision}: initialize, filtered tools/list, the GET stream and DELETE`, async function () {
      const init = await rpc(initializeRequest(revision));
      assert.equal(init.status, 200, init.text);
      assert.match(init.text, new RegExp(`"protocolVersion":"${revision}"`));
      const sid = init.headers.get('mcp-session-id') ?? '';
      assert.ok(sid);
      const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': revision };
      await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      const list = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
      assert.equal(list.status, 200, list.text);
      assert.match(list.text, /"name":"echo"/);
      assert.doesNotMatch(list.text, /"name":"add"/, 'filtered out of the event stream');

      const stream = new AbortController();
      const get = await fetch(endpoint(), {
        headers: { authorization: await bearer(), accept: 'text/event-stream', ...headers },
        signal: stream.signal,
      });
      assert.equal(get.status, 200);
      assert.match(get.headers.get('content-type') ?? '', /text\/event-stream/);
      stream.abort();

      const del = await fetch(endpoint(), {
        method: 'DELETE',
        headers: { authorization: await bearer(), ...headers },
      });
      assert.equal(del.status, 200);
      const after = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers);
      assert.equal(after.status, 404, 'the ended session is unknown');
    });
  }

  it('treats another user’s session id as unknown (404)', async function () {
    const init = await rpc(initializeRequest());
    const sid = init.headers.get('mcp-session-id') ?? '';
    const r = await call(endpoint(), {
      method: 'POST',
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      headers: {
        authorization: await bearer('admin'),
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    assert.equal(r.status, 404, r.text);
    assert.equal((r.json() as RpcError).error.message, 'Session not found');
  });

  describe('refusals', function () {
    const init = initializeRequest('2025-11-25', 9);

    it('answers 401 with a Bearer challenge without a platform token', async function () {
      const r = await call(endpoint(), { method: 'POST', body: init });
      assert.equal(r.status, 401);
      assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer /);
      const body = r.json() as RpcError;
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.error.data?.code, 'authentication_required');
    });

    it('answers -32002 mcp_server_access_denied for an unknown id and a server of another organization', async function () {
      const bodies = new Set<string>();
      for (const id of [randomId(), 'not-a-uuid', foreignServerId]) {
        const r = await rpc(init, {}, id);
        assert.equal(r.status, 403, r.text);
        const body = r.json() as RpcError;
        assert.deepEqual(
          [body.id, body.error.code, body.error.data?.code],
          [9, -32002, 'mcp_server_access_denied'],
        );
        bodies.add(r.text);
      }
      // Byte-identical (same JSON-RPC id), so another organization's server cannot be probed.
      assert.equal(bodies.size, 1, [...bodies].join('\n'));
      // …although the gateway knows that server: the platform admin gets past the access check.
      const known = await rpc(init, {}, foreignServerId, 'admin');
      assert.equal((known.json() as RpcError).error.data?.code, 'mcp_credential_not_linked');
      const outsider = await call(endpoint(), {
        method: 'POST',
        body: init,
        headers: {
          authorization: `Bearer ${await tokenFor('nobody')}`,
          accept: 'application/json, text/event-stream',
        },
      });
      assert.equal(outsider.status, 403, outsider.text);
      assert.equal((outsider.json() as RpcError).error.code, -32002);
    });

    it('refuses a member without can_access_api on POST, GET and DELETE, by token or API key, even with a linked credential, exactly as a server they may not use', async function () {
      const outsider = keycloak().users.outsider.id;
      const asOutsider = caller(api.url, 'outsider', a.organizationId);
      await setMembership(a.organizationId, 'outsider', true);
      // While they hold the permission: a linked credential and an API key, and the gateway
      // serves them, so what refuses them below is the permission alone.
      await setPermissionsIn(a.organizationId, outsider, ['can_access_api']);
      let key = '';
      try {
        await link(asOutsider, serverId, memberCredential);
        const created = await asOutsider('POST', '/v1/api-keys', { name: 'gateway' });
        assert.equal(created.status, 201, created.text);
        key = (created.json() as { key: string }).key;
        rememberSecret(key);
        const served = await call(endpoint(), {
          method: 'POST',
          body: init,
          headers: {
            authorization: `Bearer ${await tokenFor('outsider', ORG_SCOPE)}`,
            accept: 'application/json, text/event-stream',
          },
        });
        assert.equal(served.status, 200, served.text);
      } finally {
        await setPermissionsIn(a.organizationId, outsider, []);
      }
      try {
        const token = await tokenFor('outsider', ORG_SCOPE);
        for (const method of ['POST', 'GET', 'DELETE']) {
          const request = (id: string, auth: Record<string, string>) =>
            call(endpoint(id), {
              method,
              ...(method === 'POST' ? { body: init } : {}),
              headers: { accept: 'application/json, text/event-stream', ...auth },
            });
          // What a member with the permission gets for a server id that does not exist.
          const unknown = await request(randomId(), { authorization: await bearer() });
          assert.equal(unknown.status, 403, unknown.text);
          for (const [how, auth] of [
            ['token', { authorization: `Bearer ${token}` }],
            ['API key', { 'x-api-key': key }],
          ] as const) {
            const r = await request(serverId, auth);
            assert.equal(r.status, 403, `${method} by ${how}: ${r.text}`);
            assert.equal(r.text, unknown.text, `${method} by ${how}`);
            assert.equal(r.headers.get('www-authenticate'), null);
          }
        }
      } finally {
        await setPermissionsIn(a.organizationId, outsider, ['can_access_api']);
        await asOutsider('DELETE', `/v1/mcp/servers/${serverId}/credential`);
        await setPermissionsIn(a.organizationId, outsider, []);
        await setMembership(a.organizationId, 'outsider', false);
      }
    });

    it('answers -32003 mcp_credential_not_linked with WWW-Authenticate: Bearer error="mcp_credential_not_linked"', async function () {
      const r = await rpc(init, {}, serverId, 'admin');
      assert.equal(r.status, 403, r.text);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer error="mcp_credential_not_linked"');
      const body = r.json() as RpcError;
      assert.deepEqual(
        [body.error.code, body.error.data?.code],
        [-32003, 'mcp_credential_not_linked'],
      );
    });

    it('answers -32004 mcp_credential_rejected when the upstream refuses the linked credential', async function () {
      const admin = caller(api.url, 'admin', a.organizationId);
      const wrong = `wrong-${randomId()}`;
      rememberSecret(wrong);
      await link(admin, serverId, wrong);
      try {
        const r = await rpc(init, {}, serverId, 'admin');
        assert.equal(r.status, 403, r.text);
        assert.equal(r.headers.get('www-authenticate'), 'Bearer error="mcp_credential_rejected"');
        const body = r.json() as RpcError;
        assert.deepEqual(
          [body.error.code, body.error.data?.code],
          [-32004, 'mcp_credential_rejected'],
        );
        assert.ok(!r.text.includes(wrong));
      } finally {
        await admin('DELETE', `/v1/mcp/servers/${serverId}/credential`);
      }
    });
  });

  // Nested and last: mocha runs a describe's own tests before its nested describes.
  describe('afterwards', function () {
    it('counts requests, upstream latency and refusals by code in /metrics, on its own port only', async function () {
      assert.equal((await fetch(`${gatewayUrl}/metrics`)).status, 404, 'not on the public port');
      const text = await (await fetch(`http://127.0.0.1:${gatewayMetricsPort}/metrics`)).text();
      assert.match(text, /aiplane_gateway_requests_total\{method="POST",outcome="proxied"\} [1-9]/);
      assert.match(text, /aiplane_gateway_upstream_seconds_count\{method="POST"\} [1-9]/);
      assert.match(text, /aiplane_gateway_refusals_total\{code="unknown_tool"\} [1-9]/);
      assert.match(
        text,
        /aiplane_gateway_refusals_total\{code="mcp_credential_not_linked"\} [1-9]/,
      );
    });
  });
});
