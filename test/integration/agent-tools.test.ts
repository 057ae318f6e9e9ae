import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import {
  type McpTestServer,
  startMcpTestServer,
  startOpenAiTestBackend,
  waitFor,
} from '@aiplane/hack';
import type { OpenAiTestBackend } from '@aiplane/hack';
import { createApiKey, ORG_SCOPE, tokenFor } from './api-helpers.js';
import { type GatewayStack, startGatewayStack } from './fixtures/index.js';
import { link, randomId, registerRemote } from './mcp-helpers.js';
import { addEchoModel, vendorClient, vendorError } from './messages-helpers.js';
import { newSecret, rememberSecret } from './secrets.js';

interface ChatBody {
  messages: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  tools?: { function: { name: string; description?: string } }[];
}

/**
 * Agents with MCP tools (docs/adr/0029): an agent's servers' tools are offered to the model and
 * run through the real gateway as the calling user, against a real MCP server (official SDK),
 * with the vendor's own SDK as the client.
 */
describe('agents with MCP tools: /anthropic/v1/messages runs an agent’s tools through the gateway as the caller', function () {
  this.timeout(120_000);
  let stack: GatewayStack;
  let upstream: McpTestServer;
  let backend: OpenAiTestBackend;
  let client: Anthropic;
  let agent: string;
  let serverId: string;
  let unlinkedId: string;
  /** Runs before the backend answers the next chat request, once. */
  let beforeNextAnswer: (() => Promise<void>) | undefined;
  const memberCredential = `agent-upstream-${randomId()}`;
  rememberSecret(memberCredential);
  const BACKEND_KEY = newSecret('sk-agent-backend');

  const chats = () =>
    backend.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as ChatBody);
  const offered = (c: ChatBody | undefined) => (c?.tools ?? []).map((t) => t.function.name).sort();
  const ask = (content: string) =>
    client.messages.create({
      model: `anthropic-agent-${agent}`,
      max_tokens: 200,
      messages: [{ role: 'user', content }],
    });

  before(async function () {
    this.timeout(300_000);
    upstream = await startMcpTestServer({
      token: memberCredential,
      tools: [
        { name: 'secret', description: 'Not on the allowlist' },
        { name: 'boom', description: 'Always fails', result: 'boom failed', fails: true },
        { name: 'again', description: 'Asks to be called again', result: 'call again' },
      ],
    });
    backend = await startOpenAiTestBackend({
      apiKey: BACKEND_KEY,
      beforeAnswer: async () => {
        const act = beforeNextAnswer;
        beforeNextAnswer = undefined;
        await act?.();
      },
    });
    stack = await startGatewayStack(
      'agent-tools',
      'agt',
      {},
      {
        AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
      },
    );
    const { admin, member } = stack;
    serverId = await registerRemote(admin, {
      name: 'tools',
      address: upstream.url,
      tool_allowlist: ['echo', 'add', 'boom', 'again'],
    });
    await link(member, serverId, memberCredential);
    // A server the member has linked no credential for.
    unlinkedId = await registerRemote(admin, { name: 'unlinked', address: upstream.url });
    await addEchoModel(admin, backend.baseUrl, BACKEND_KEY);
    const created = await member('POST', '/v1/agents', {
      name: 'tool-user',
      instructions: 'You are the tools agent.',
      model: 'echo',
      mcp_server_ids: [serverId, unlinkedId],
    });
    assert.equal(created.status, 201, created.text);
    agent = (created.json() as { id: string }).id;
    client = vendorClient(stack.api.url, stack.a.organizationId, {
      apiKey: await createApiKey(stack.api.url, 'member', 'agent-tools'),
    });
  });

  after(async function () {
    await stack?.close();
    await Promise.all([upstream?.close(), backend?.close()]);
  });

  beforeEach(function () {
    backend.requests.length = 0;
  });

  it('opens no session for a request it refuses, and ends every session it opened', async function () {
    // First in the file: no earlier test left a session (one whose credential is removed
    // before its end cannot be ended, and others end just after their answer).
    const before = upstream.openSessions();
    assert.equal(before, 0);
    const refused = await vendorError(
      client.messages.create({
        model: `anthropic-agent-${agent}`,
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/x.png' } }],
          },
        ],
      }),
    );
    assert.equal(refused.status, 400);
    assert.equal(upstream.openSessions(), before);
    assert.equal(chats().length, 0);
    await ask('call echo {"text": "x"}');
    await waitFor(
      'the agent’s sessions to end',
      () => Promise.resolve(upstream.openSessions() === before),
      {
        timeoutMs: 10_000,
      },
    );
  });

  it('answers a question that needs a tool: the tool runs through the gateway with the member’s credential, and its result goes back to the model', async function () {
    const seen = upstream.seenAuthorization.length;
    const m = await ask('please call add {"a": 2, "b": 3}');
    assert.deepEqual(m.content, [{ type: 'text', text: 'tool said: 5' }]);
    assert.equal(m.stop_reason, 'end_turn');
    const [first, second] = chats();
    assert.equal(chats().length, 2);
    // Offered: the allowlisted tools the upstream has (not `secret`), with their descriptions.
    assert.deepEqual(offered(first), ['add', 'again', 'boom', 'echo']);
    assert.equal(
      first?.tools?.find((t) => t.function.name === 'add')?.function.description,
      'Adds two numbers.',
    );
    // The agent's instructions, and why the unlinked server's tools are missing: the gateway's
    // own refusal.
    const system = first?.messages[0];
    assert.equal(system?.role, 'system');
    assert.match(String(system?.content), /^You are the tools agent\./);
    assert.match(String(system?.content), new RegExp(`MCP server ${unlinkedId} .*link`, 's'));
    const toolTurn = second?.messages.slice(-2);
    assert.equal(toolTurn?.[0]?.role, 'assistant');
    assert.equal(toolTurn?.[1]?.role, 'tool');
    assert.equal(toolTurn?.[1]?.content, '5');
    // The upstream was called with the member's own linked credential (the gateway's doing).
    const sent = upstream.seenAuthorization.slice(seen);
    assert.ok(sent.length > 0);
    assert.ok(sent.every((h) => h === `Bearer ${memberCredential}`));
    // Usage covers both steps.
    assert.equal(m.usage.input_tokens > 0, true);
  });

  it('runs the tools as the caller of a JWT too (bearer passed to the gateway)', async function () {
    const jwtClient = vendorClient(stack.api.url, stack.a.organizationId, {
      authToken: await tokenFor('member', ORG_SCOPE),
    });
    const m = await jwtClient.messages.create({
      model: `anthropic-agent-${agent}`,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'call echo {"text": "from a token"}' }],
    });
    assert.deepEqual(m.content, [{ type: 'text', text: 'tool said: from a token' }]);
  });

  it('never offers or calls a tool outside the server’s allowlist', async function () {
    const m = await ask('call secret now');
    assert.deepEqual(m.content, [{ type: 'text', text: 'echo: call secret now' }]);
    assert.equal(chats().length, 1);
    assert.ok(!offered(chats()[0]).includes('secret'));
  });

  it('gives a tool’s error back to the model as an error result', async function () {
    const m = await ask('call boom');
    assert.deepEqual(m.content, [{ type: 'text', text: 'tool said: Error: boom failed' }]);
    assert.equal(chats()[1]?.messages.at(-1)?.content, 'Error: boom failed');
  });

  it('without the user’s credential, the gateway’s refusal reaches the model as a tool error', async function () {
    // The credential is removed between the model's request for the tool and its call.
    beforeNextAnswer = async () => {
      const r = await stack.member('DELETE', `/v1/mcp/servers/${serverId}/credential`);
      assert.equal(r.status, 204, r.text);
    };
    try {
      const m = await ask('call add {"a": 1, "b": 1}');
      const result = chats()[1]?.messages.at(-1);
      assert.equal(result?.role, 'tool');
      assert.match(String(result?.content), /^Error: .*credential/i);
      assert.equal(m.content[0]?.type, 'text');
      assert.match((m.content[0] as { text: string }).text, /^tool said: Error: .*credential/i);
    } finally {
      await link(stack.member, serverId, memberCredential);
    }
  });

  it('streams the final answer after the tool round, with no tool blocks of the agent’s own', async function () {
    const stream = client.messages.stream({
      model: `anthropic-agent-${agent}`,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'call echo {"text": "streamed words here"}' }],
    });
    const events: string[] = [];
    let text = '';
    stream.on('streamEvent', (e) => events.push(e.type));
    stream.on('text', (delta) => {
      text += delta;
    });
    const m = await stream.finalMessage();
    assert.equal(text, 'tool said: streamed words here');
    assert.deepEqual(m.content, [{ type: 'text', text: 'tool said: streamed words here' }]);
    assert.equal(m.stop_reason, 'end_turn');
    assert.equal(events[0], 'message_start');
    assert.deepEqual(events.slice(-2), ['message_delta', 'message_stop']);
    assert.equal(events.filter((e) => e === 'message_start').length, 1);
    assert.ok(events.filter((e) => e === 'content_block_delta').length >= 4);
    assert.equal(chats().length, 2);
  });

  it('stops at the step bound (10 backend calls) with pause_turn, streaming or not', async function () {
    const m = await ask('call again');
    assert.equal(m.stop_reason, 'pause_turn');
    assert.deepEqual(m.content, []);
    assert.equal(chats().length, 10);
    backend.requests.length = 0;
    const streamed = await client.messages
      .stream({
        model: `anthropic-agent-${agent}`,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'call again' }],
      })
      .finalMessage();
    assert.equal(streamed.stop_reason, 'pause_turn');
    assert.equal(chats().length, 10);
  });

  it('returns a call of the client’s own tool to the client, beside the agent’s tools', async function () {
    const m = await client.messages.create({
      model: `anthropic-agent-${agent}`,
      max_tokens: 100,
      tools: [{ name: 'local_clock', input_schema: { type: 'object', properties: {} } }],
      messages: [{ role: 'user', content: 'call local_clock' }],
    });
    assert.equal(m.stop_reason, 'tool_use');
    assert.deepEqual(
      m.content.map((b) => (b.type === 'tool_use' ? b.name : b.type)),
      ['local_clock'],
    );
    assert.deepEqual(offered(chats()[0]), ['add', 'again', 'boom', 'echo', 'local_clock']);
  });
});
