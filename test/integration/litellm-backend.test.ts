// The messages API against a backend nobody here wrote: LiteLLM's proxy (PyPI
// `litellm[proxy]`, installed by hack/lib/install-litellm.sh) with models that its own
// `mock_response` answers. The client is the vendor's own SDK; the API, PostgreSQL and
// Keycloak are the real ones the harness starts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { type LiteLlmProxy, type ManagedProcess, startLiteLlmProxy } from '@aiplane/hack';
import { createApiKey, startTestApi, type TestApi } from './api-helpers.js';
import {
  addMembers,
  caller,
  provisionTenants,
  removeMembers,
  type Tenant,
} from './fixtures/index.js';
import { environment } from './harness.js';
import { startOperatorProcess } from './operator-process.js';
import { vendorClient, vendorError } from './messages-helpers.js';
import { newSecret } from './secrets.js';

const TEXT = 'Hello from LiteLLM’s mock — no model ran.';
const TOOL_TEXT = 'Let me look that up.';
const MASTER_KEY = newSecret('sk-litellm-master');
/** LiteLLM's usage for a non-streamed mock (DEFAULT_MOCK_RESPONSE_*_TOKEN_COUNT). */
const MOCK_USAGE = { prompt_tokens: 10, completion_tokens: 20 };

describe('messages API over a third-party backend: LiteLLM’s proxy with mock models', function () {
  this.timeout(120_000);
  let litellm: LiteLlmProxy;
  let api: TestApi;
  let tenant: Tenant;
  let client: Anthropic;
  let operator: ManagedProcess | undefined;

  before(async function () {
    this.timeout(400_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    const logFile = join(environment().controlPlane.logDir, 'litellm.log');
    [litellm, api] = await Promise.all([
      startLiteLlmProxy({
        masterKey: MASTER_KEY,
        logFile,
        models: [
          { name: 'mock-text', text: TEXT },
          {
            name: 'mock-tools',
            text: TOOL_TEXT,
            toolCalls: [{ id: 'call_mock_1', name: 'get_weather', arguments: { city: 'Paris' } }],
          },
        ],
      }),
      startTestApi('litellm-backend', { AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true' }),
    ]);
    [tenant] = await provisionTenants(api.url, 'litellm-a');
    await addMembers(tenant.organizationId, ['member']);
    const admin = caller(api.url, 'admin', tenant.organizationId);
    for (const body of [
      { name: 'lite', backend_model: 'mock-text', api_key: MASTER_KEY },
      { name: 'lite-tools', backend_model: 'mock-tools', api_key: MASTER_KEY },
      { name: 'lite-wrong-key', backend_model: 'mock-text', api_key: newSecret('sk-wrong') },
    ]) {
      const r = await admin('POST', '/v1/models', {
        mode: 'chat',
        base_url: litellm.baseUrl,
        ...body,
      });
      assert.equal(r.status, 201, r.text);
    }
    client = vendorClient(api.url, tenant.organizationId, {
      apiKey: await createApiKey(api.url, 'member', 'litellm'),
    });
  });

  after(async function () {
    if (tenant) await removeMembers(tenant.organizationId, ['member']);
    await operator?.stop();
    await Promise.all([api?.close(), litellm?.stop()]);
  });

  /** What LiteLLM itself answers for a chat request (the master key as Bearer). */
  async function direct(body: object): Promise<Response> {
    return fetch(`${litellm.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  it('messages.create answers the mock text, end_turn and the usage LiteLLM reports', async function () {
    const m = await client.messages.create({
      model: 'anthropic-model-lite',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
    assert.equal(m.type, 'message');
    assert.equal(m.role, 'assistant');
    assert.equal(m.model, 'anthropic-model-lite');
    assert.deepEqual(
      m.content.map((b) => (b.type === 'text' ? b.text : b.type)),
      [TEXT],
    );
    assert.equal(m.stop_reason, 'end_turn');
    assert.equal(m.stop_sequence, null);
    assert.equal(m.usage.input_tokens, MOCK_USAGE.prompt_tokens);
    assert.equal(m.usage.output_tokens, MOCK_USAGE.completion_tokens);
    // The same numbers LiteLLM answers when asked directly.
    const raw = (await (
      await direct({ model: 'mock-text', messages: [{ role: 'user', content: 'Say hello.' }] })
    ).json()) as { usage: typeof MOCK_USAGE; choices: { finish_reason: string }[] };
    assert.equal(raw.choices[0]?.finish_reason, 'stop');
    assert.equal(raw.usage.prompt_tokens, MOCK_USAGE.prompt_tokens);
    assert.equal(raw.usage.completion_tokens, MOCK_USAGE.completion_tokens);
  });

  it('messages.stream yields the vendor’s event sequence and the mock text, with LiteLLM’s streamed usage', async function () {
    const ask = { role: 'user' as const, content: 'Stream a hello.' };
    const stream = client.messages.stream({
      model: 'lite',
      max_tokens: 100,
      messages: [ask],
    });
    const events: string[] = [];
    let text = '';
    for await (const e of stream) {
      events.push(e.type);
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    }
    const final = await stream.finalMessage();
    assert.equal(text, TEXT);
    assert.deepEqual(
      final.content.map((b) => (b.type === 'text' ? b.text : b.type)),
      [TEXT],
    );
    // LiteLLM streams three characters a chunk: one delta each.
    const deltas = Math.ceil([...TEXT].length / 3);
    assert.deepEqual(events, [
      'message_start',
      'content_block_start',
      ...Array<string>(deltas).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    assert.equal(final.stop_reason, 'end_turn');
    // LiteLLM counts a streamed answer's tokens itself; the platform passes its numbers on.
    const sse = await (
      await direct({
        model: 'mock-text',
        messages: [ask],
        stream: true,
        stream_options: { include_usage: true },
      })
    ).text();
    const usage = sse
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)) as { usage?: typeof MOCK_USAGE })
      .find((c) => c.usage)?.usage;
    assert.ok(usage, 'LiteLLM streamed no usage');
    assert.equal(final.usage.output_tokens, usage.completion_tokens);
    assert.equal(final.usage.input_tokens, usage.prompt_tokens);
  });

  it('a tool call LiteLLM answers with finish_reason "stop" is a tool_use turn, and the tool result goes back', async function () {
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'The weather in a city.',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ];
    const question = { role: 'user' as const, content: 'What is the weather in Paris?' };
    const first = await client.messages.create({
      model: 'lite-tools',
      max_tokens: 100,
      tools,
      messages: [question],
    });
    assert.equal(first.stop_reason, 'tool_use');
    assert.equal(first.content.length, 2);
    const [said, use] = first.content;
    assert.deepEqual(said && said.type === 'text' && said.text, TOOL_TEXT);
    assert.ok(use?.type === 'tool_use', JSON.stringify(first.content));
    assert.match(use.id, /^toolu_/);
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { city: 'Paris' });
    // The second turn, translated back (assistant tool_calls + a tool message), is one LiteLLM
    // takes; its text mock answers it.
    const second = await client.messages.create({
      model: 'lite',
      max_tokens: 100,
      tools,
      messages: [
        question,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 °C.' }],
        },
      ],
    });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(
      second.content.map((b) => (b.type === 'text' ? b.text : b.type)),
      [TEXT],
    );
  });

  it('a backend key LiteLLM does not know is the vendor’s 400 naming LiteLLM’s reason, the key in no message', async function () {
    // LiteLLM without a database cannot look a key other than its master key up: it answers
    // 400 "No connected db." (a 401 or 403 from a backend would be api_error, unit-tested).
    const err = await vendorError(
      client.messages.create({
        model: 'lite-wrong-key',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    assert.equal(err.status, 400);
    const body = err.error as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /^the model backend refused the request: .*No connected db/);
    assert.equal(body.error.message.includes('sk-wrong'), false);
    assert.match(err.headers?.get('request-id') ?? '', /^req_/);
  });
});
