import assert from 'node:assert/strict';
import {
  Client as Client2026,
  ProtocolError,
  StreamableHTTPClientTransport as Transport2026,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcp2026TestServer, waitFor, type Mcp2026TestServer } from '@aiplane/hack';
import { call, ORG_SCOPE, tokenFor, type Reply } from './api-helpers.js';
import { startGatewayStack, type GatewayStack } from './fixtures/index.js';
import { initializeRequest } from './gateway-helpers.js';
import { link, randomId } from './mcp-helpers.js';
import { rememberSecret } from './secrets.js';

const REVISION = '2026-07-28';

/** One POST the v2 client sent, as it went on the wire. */
interface Sent {
  headers: Record<string, string>;
  body: string;
}

describe('MCP gateway, revision 2026-07-28 (v2 SDK client → gateway → v2 SDK server)', function () {
  let stack: GatewayStack | undefined;
  let gatewayUrl: string;
  let modern: Mcp2026TestServer;
  let stateless: Mcp2026TestServer;
  let modernId: string;
  let statelessId: string;
  const memberCredential = `member-upstream-2026-${randomId()}`;
  rememberSecret(memberCredential);

  const endpoint = (id: string) => `${gatewayUrl}/servers/${id}/mcp`;
  const bearer = async () => `Bearer ${await tokenFor('member', ORG_SCOPE)}`;

  /** A v2 client pinned to 2026-07-28 that records every request it sends. */
  const connect2026 = async (sent: Sent[] = []) => {
    const recording = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => {
        headers[name] = value;
      });
      if (typeof init?.body === 'string') sent.push({ headers, body: init.body });
      return fetch(url, init);
    };
    const client = new Client2026(
      { name: 'it-client-2026', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: REVISION } } },
    );
    const transport = new Transport2026(new URL(endpoint(modernId)), {
      fetch: recording,
      requestInit: { headers: { authorization: await bearer() } },
    });
    await client.connect(transport);
    return { client, sent };
  };

  before(async function () {
    this.timeout(240_000);
    modern = await startMcp2026TestServer({
      token: memberCredential,
      legacy: 'reject',
      tools: [{ name: 'search', title: 'Search', description: 'Finds documents' }],
    });
    stateless = await startMcp2026TestServer({ token: memberCredential, legacy: 'stateless' });
    stack = await startGatewayStack('gateway-2026', 'gw26');
    const { admin, member } = stack;
    gatewayUrl = stack.gateway.url;
    const register = async (name: string, address: string): Promise<string> => {
      const r = await admin('POST', '/v1/mcp/servers', {
        runtime: 'remote',
        name,
        display_name: name,
        address,
        // `ghost` is allowed but offered by no upstream: answered like any unknown tool.
        tool_allowlist: ['echo', 'ghost'],
      });
      assert.equal(r.status, 200, r.text);
      const id = (r.json() as { id: string }).id;
      await link(member, id, memberCredential);
      return id;
    };
    modernId = await register('docs-2026', modern.url);
    statelessId = await register('docs-stateless', stateless.url);
    // The gateway started before tenant a was provisioned: it learns the tenant's organization
    // from its TenantLifecycle watch (no read-through), on the watch's schedule. Until then it
    // answers -32002 for a's servers. A probe that is not a tools/call (which would fill the
    // offered-tools cache the tests below rely on being cold).
    await waitFor('the gateway to know tenant a and its servers', async () => {
      for (const id of [modernId, statelessId]) {
        const r = await call(endpoint(id), {
          method: 'POST',
          body: initializeRequest(),
          headers: { authorization: await bearer(), accept: 'application/json, text/event-stream' },
        });
        if (r.status === 403 && r.text.includes('"mcp_server_access_denied"')) return false;
      }
      return true;
    });
  });

  after(async function () {
    await stack?.close();
    await modern?.close();
    await stateless?.close();
  });

  it('negotiates 2026-07-28 and answers server/discover through the gateway', async function () {
    const { client, sent } = await connect2026();
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), REVISION);
      const discovered = await client.discover();
      assert.ok(discovered.supportedVersions.includes(REVISION), JSON.stringify(discovered));
      assert.ok(discovered.capabilities.tools, 'the upstream offers tools');
      const probes = sent.filter((s) => s.headers['mcp-method'] === 'server/discover');
      assert.ok(probes.length >= 2, 'the connect probe and the explicit discover');
      assert.ok(probes.every((s) => s.headers['mcp-protocol-version'] === REVISION));
    } finally {
      await client.close();
    }
  });

  it('lists only the allowed tool (tools/list rewritten)', async function () {
    const { client } = await connect2026();
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo'],
      );
    } finally {
      await client.close();
    }
  });

  it('calls the allowed tool with the member’s own credential, never their platform token', async function () {
    modern.seenAuthorization.length = 0;
    modern.seenMcpMethod.length = 0;
    const { client, sent } = await connect2026();
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hello 2026' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hello 2026' }]);
      const call = sent.find((s) => s.headers['mcp-method'] === 'tools/call');
      assert.equal(call?.headers['mcp-name'], 'echo', 'the client sends Mcp-Name');
    } finally {
      await client.close();
    }
    assert.ok(modern.seenAuthorization.length > 0);
    assert.ok(
      modern.seenAuthorization.every((h) => h === `Bearer ${memberCredential}`),
      'the upstream saw only the member’s linked credential',
    );
    // Every Mcp-Method the client sent reached the upstream, in order. The rest is the
    // gateway's own listing for its offered-tools check (a refused 2025 initialize without the
    // header, then server/discover and tools/list over 2026-07-28), before the call.
    const seen = modern.seenMcpMethod.filter((m) => m !== '');
    assert.deepEqual(seen, ['server/discover', 'server/discover', 'tools/list', 'tools/call']);
    assert.deepEqual(
      sent.map((s) => s.headers['mcp-method']),
      ['server/discover', 'tools/call'],
    );
  });

  it('answers a disallowed and a nonexistent tool call identically: 200, -32602 Unknown tool', async function () {
    // The envelope and headers exactly as the v2 client sends them, taken from a real call.
    const { client, sent } = await connect2026();
    let template: Sent | undefined;
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'template' } });
      template = sent.find((s) => s.headers['mcp-method'] === 'tools/call');
      for (const name of ['add', 'nope']) {
        await assert.rejects(
          client.callTool({ name, arguments: name === 'add' ? { a: 1, b: 2 } : {} }),
          (error: unknown) =>
            error instanceof ProtocolError &&
            error.code === -32602 &&
            error.message.includes(`Unknown tool: ${name}`),
          `the v2 client sees -32602 Unknown tool: ${name}`,
        );
      }
    } finally {
      await client.close();
    }
    assert.ok(template, 'the client sent a tools/call');
    const envelope = JSON.parse(template.body) as {
      params: { name: string; arguments: unknown; _meta: Record<string, unknown> };
    };
    assert.equal(envelope.params._meta['io.modelcontextprotocol/protocolVersion'], REVISION);

    const raw = async (name: string, args: unknown): Promise<Reply> =>
      call(endpoint(modernId), {
        method: 'POST',
        headers: {
          ...template.headers,
          'mcp-name': name,
          authorization: await bearer(),
        },
        body: {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { ...envelope.params, name, arguments: args },
        },
      });
    const disallowed = await raw('add', { a: 1, b: 2 });
    assert.equal(disallowed.status, 200, disallowed.text);
    assert.equal(
      disallowed.text,
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: add"}}',
    );
    const nonexistent = await raw('nope', {});
    assert.equal(nonexistent.status, 200, nonexistent.text);
    assert.equal(
      nonexistent.text,
      disallowed.text.replace('Unknown tool: add', 'Unknown tool: nope'),
    );
    const allowedButAbsent = await raw('ghost', {});
    assert.equal(allowedButAbsent.status, 200, allowedButAbsent.text);
    assert.equal(
      allowedButAbsent.text,
      disallowed.text.replace('Unknown tool: add', 'Unknown tool: ghost'),
    );
  });

  it('passes the 2026-only upstream’s 405 for GET and DELETE through', async function () {
    const headers = { authorization: await bearer(), 'mcp-protocol-version': REVISION };
    const get = await fetch(endpoint(modernId), {
      headers: { ...headers, accept: 'text/event-stream' },
    });
    await get.body?.cancel();
    assert.equal(get.status, 405);
    const del = await fetch(endpoint(modernId), { method: 'DELETE', headers });
    await del.body?.cancel();
    assert.equal(del.status, 405);
  });

  it('serves a 2025 v1 SDK client through the gateway from a stateless upstream (no session id)', async function () {
    stateless.seenAuthorization.length = 0;
    const client = new Client({ name: 'it-client-2025', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint(statelessId)), {
      requestInit: { headers: { authorization: await bearer() } },
    });
    try {
      await client.connect(transport);
      assert.equal(transport.sessionId, undefined, 'stateless: no Mcp-Session-Id');
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo'],
      );
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hello 2025' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hello 2025' }]);
      assert.equal(transport.sessionId, undefined);
    } finally {
      await client.close();
    }
    assert.ok(stateless.seenAuthorization.length > 0);
    assert.ok(stateless.seenAuthorization.every((h) => h === `Bearer ${memberCredential}`));
  });
});
