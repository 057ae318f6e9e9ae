import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ManagedProcess,
  startOpenAiTestBackend,
  type OpenAiTestBackend,
  waitFor,
} from '@aiplane/hack';
import {
  call,
  createApiKey,
  keycloak,
  ORG_SCOPE,
  startTestApi,
  tokenFor,
  type TestApi,
} from './api-helpers.js';
import {
  addMembers,
  caller,
  provisionTenants,
  removeMembers,
  type Call,
  type Tenant,
} from './fixtures/index.js';
import { environment } from './harness.js';
import { acting, fileWithStatus, shareWith } from './files-helpers.js';
import { vendorClient, vendorError } from './messages-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { newSecret } from './secrets.js';

/** A 1×1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** The backend's key in the catalogue: write-only, and never in a log (it/zz-no-secrets-in-logs). */
const BACKEND_KEY = newSecret('sk-backend');

interface ChatBody {
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  max_tokens: number;
  stop?: string[];
  user?: string;
  tools?: unknown[];
  stream?: boolean;
}

describe('messages API: /anthropic/v1 with the vendor’s own SDK as the client', function () {
  this.timeout(120_000);
  let api: TestApi;
  let backend: OpenAiTestBackend;
  let operator: ManagedProcess | undefined;
  let a: Tenant;
  let b: Tenant;
  let memberInA: Call;
  let adminInB: Call;
  let memberKey: string;
  let agentA: string;
  let agentB: string;
  /** The SDK as a vendor client would use it, pointed at the platform; our retries only. */
  let client: Anthropic;
  let filesDir: string | undefined;

  const sdk = (opts: { apiKey?: string; authToken?: string } = {}) =>
    vendorClient(api.url, a.organizationId, opts);
  const lastChat = () => backend.requests[backend.requests.length - 1]?.body as ChatBody;

  before(async function () {
    this.timeout(300_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    backend = await startOpenAiTestBackend({ apiKey: BACKEND_KEY, models: ['org/echo-7b'] });
    filesDir = await mkdtemp(join(tmpdir(), 'aiplane-messages-files-'));
    api = await startTestApi('messages-api', {
      AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
      AIPLANE_INFERENCE_RETRY_BASE_MS: '20',
      AIPLANE_FILES_DIR: filesDir,
    });
    [a, b] = await provisionTenants(api.url, 'msg-a', 'msg-b');
    await addMembers(a.organizationId, ['member']);
    memberInA = caller(api.url, 'member', a.organizationId);
    adminInB = caller(api.url, 'admin', b.organizationId);
    const admin = caller(api.url, 'admin', a.organizationId);
    // A platform-wide model and one of tenant A's own.
    for (const [who, body] of [
      [admin, { name: 'echo', platform_wide: true }],
      [admin, { name: 'echo-a' }],
    ] as const) {
      const r = await who('POST', '/v1/models', {
        mode: 'chat',
        base_url: backend.baseUrl,
        backend_model: 'org/echo-7b',
        api_key: BACKEND_KEY,
        ...body,
      });
      assert.equal(r.status, 201, r.text);
    }
    const mine = await memberInA('POST', '/v1/agents', {
      name: 'helper',
      instructions: 'You are the helper agent.',
      model: 'echo',
    });
    assert.equal(mine.status, 201, mine.text);
    agentA = (mine.json() as { id: string }).id;
    // An agent whose model is not in the catalogue could not answer: it is not listed.
    const orphan = await memberInA('POST', '/v1/agents', { name: 'orphan', model: 'missing' });
    assert.equal(orphan.status, 201, orphan.text);
    const theirs = await adminInB('POST', '/v1/agents', {
      name: 'secret',
      instructions: 'Only for B.',
      model: 'echo',
    });
    assert.equal(theirs.status, 201, theirs.text);
    agentB = (theirs.json() as { id: string }).id;
    memberKey = await createApiKey(api.url, 'member', 'messages');
    client = sdk({ apiKey: memberKey });
  });

  after(async function () {
    if (a) await removeMembers(a.organizationId, ['member']);
    await operator?.stop();
    await Promise.all([api?.close(), backend?.close()]);
    if (filesDir) await rm(filesDir, { recursive: true, force: true });
  });

  describe('messages.create', function () {
    it('answers a plain message in the vendor’s shape, through the catalogue’s backend and key', async function () {
      const { data: m, response } = await client.messages
        .create({
          model: 'anthropic-model-echo',
          max_tokens: 100,
          messages: [{ role: 'user', content: 'hello there' }],
        })
        .withResponse();
      assert.match(m.id, /^msg_/);
      assert.equal(m.type, 'message');
      assert.equal(m.role, 'assistant');
      assert.equal(m.model, 'anthropic-model-echo');
      assert.deepEqual(m.content, [{ type: 'text', text: 'echo: hello there' }]);
      assert.equal(m.stop_reason, 'end_turn');
      assert.equal(m.stop_sequence, null);
      assert.deepEqual([m.usage.input_tokens, m.usage.output_tokens], [2, 3]);
      assert.match(response.headers.get('request-id') ?? '', /^req_/);
      const sent = backend.requests[backend.requests.length - 1];
      assert.equal(sent?.headers.authorization, `Bearer ${BACKEND_KEY}`);
      assert.equal((sent?.body as ChatBody).model, 'org/echo-7b');
    });

    it('takes a bare catalogue name and an organization’s own model; an unknown one is 404 not_found_error', async function () {
      const bare = await client.messages.create({
        model: 'echo',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'bare' }],
      });
      assert.equal(bare.model, 'echo');
      const own = await client.messages.create({
        model: 'anthropic-model-echo-a',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'own' }],
      });
      assert.deepEqual(own.content, [{ type: 'text', text: 'echo: own' }]);
      const err = await vendorError(
        client.messages.create({
          model: 'anthropic-model-nope',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'x' }],
        }),
      );
      assert.equal(err.status, 404);
      assert.equal(err.type, 'not_found_error');
    });

    it('passes the system prompt and a multi-turn conversation, stop sequences and metadata.user_id', async function () {
      const m = await client.messages.create({
        model: 'echo',
        max_tokens: 50,
        system: [{ type: 'text', text: 'Be brief.' }],
        metadata: { user_id: 'user-7' },
        stop_sequences: ['STOP'],
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'echo: first' },
          { role: 'user', content: 'second then STOP and more' },
        ],
      });
      const sent = lastChat();
      assert.deepEqual(
        sent.messages.map((x) => [x.role, x.content]),
        [
          ['system', 'Be brief.'],
          ['user', 'first'],
          ['assistant', 'echo: first'],
          ['user', 'second then STOP and more'],
        ],
      );
      assert.equal(sent.user, 'user-7');
      assert.deepEqual(sent.stop, ['STOP']);
      assert.deepEqual(m.content, [{ type: 'text', text: 'echo: second then ' }]);
      assert.equal(m.stop_reason, 'stop_sequence');
      assert.equal(m.stop_sequence, 'STOP');
    });

    it('answers max_tokens when the backend cut the answer', async function () {
      const m = await client.messages.create({
        model: 'echo',
        max_tokens: 2,
        messages: [{ role: 'user', content: 'one two three four' }],
      });
      assert.equal(m.stop_reason, 'max_tokens');
      assert.deepEqual(m.content, [{ type: 'text', text: 'echo: one' }]);
    });

    it('offers tools and answers a tool_use, then reads the tool_result back', async function () {
      const tools: Anthropic.Tool[] = [
        {
          name: 'weather',
          description: 'Weather of a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ];
      const ask: Anthropic.MessageParam = {
        role: 'user',
        content: 'please call weather {"city":"Oslo"}',
      };
      const m = await client.messages.create({
        model: 'echo',
        max_tokens: 100,
        tools,
        tool_choice: { type: 'auto' },
        messages: [ask],
      });
      assert.equal(m.stop_reason, 'tool_use');
      const use = m.content.find((c) => c.type === 'tool_use');
      assert.ok(use && use.type === 'tool_use', JSON.stringify(m.content));
      assert.match(use.id, /^toolu_/);
      assert.deepEqual([use.name, use.input], ['weather', { city: 'Oslo' }]);
      const sentTools = lastChat().tools;
      assert.deepEqual(sentTools, [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ]);

      const next = await client.messages.create({
        model: 'echo',
        max_tokens: 100,
        tools,
        messages: [
          ask,
          { role: 'assistant', content: m.content },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: use.id, content: 'rain' }],
          },
        ],
      });
      assert.deepEqual(next.content, [{ type: 'text', text: 'tool said: rain' }]);
      const sent = lastChat().messages;
      assert.deepEqual(sent[sent.length - 1], {
        role: 'tool',
        tool_call_id: use.id,
        content: 'rain',
      });
      assert.deepEqual(
        (sent[sent.length - 2]?.tool_calls as { id: string }[]).map((c) => c.id),
        [use.id],
      );
    });

    it('sends a base64 image to the backend as a data URL', async function () {
      const m = await client.messages.create({
        model: 'echo',
        max_tokens: 100,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              { type: 'text', text: 'what is this' },
            ],
          },
        ],
      });
      assert.deepEqual(m.content, [{ type: 'text', text: 'echo: what is this [images: 1]' }]);
      assert.deepEqual(lastChat().messages[0]?.content, [
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'text', text: 'what is this' },
      ]);
    });

    it('refuses a request without max_tokens with 400 invalid_request_error in the vendor’s shape', async function () {
      const r = await call(`${api.url}/anthropic/v1/messages`, {
        method: 'POST',
        headers: {
          'x-api-key': memberKey,
          'anthropic-version': '2023-06-01',
          'x-aiplane-organization': a.organizationId,
        },
        body: { model: 'echo', messages: [{ role: 'user', content: 'x' }] },
      });
      assert.equal(r.status, 400, r.text);
      const body = r.json() as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, 'invalid_request_error');
      assert.match(body.error.message, /max_tokens/);
      assert.match(r.headers.get('request-id') ?? '', /^req_/);
    });
  });

  describe('messages.stream', function () {
    it('sends the vendor’s events in order; the text accumulates into the final message', async function () {
      const stream = client.messages.stream({
        model: 'anthropic-model-echo',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'stream these words' }],
      });
      const types: string[] = [];
      let text = '';
      stream.on('text', (delta) => {
        text += delta;
      });
      for await (const event of stream) types.push(event.type);
      const final = await stream.finalMessage();
      assert.deepEqual(
        types.filter((t, i) => t !== types[i - 1]),
        [
          'message_start',
          'content_block_start',
          'content_block_delta',
          'content_block_stop',
          'message_delta',
          'message_stop',
        ],
      );
      assert.equal(text, 'echo: stream these words');
      assert.deepEqual(final.content, [{ type: 'text', text: 'echo: stream these words' }]);
      assert.equal(final.stop_reason, 'end_turn');
      assert.deepEqual([final.usage.input_tokens, final.usage.output_tokens], [3, 4]);
      assert.equal(lastChat().stream, true);
    });

    it('writes the raw stream as event:/data: pairs with a ping after the first block starts', async function () {
      const r = await call(`${api.url}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': memberKey, 'x-aiplane-organization': a.organizationId },
        body: {
          model: 'echo',
          max_tokens: 20,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        },
      });
      assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
      const names = [...r.text.matchAll(/^event: (\w+)$/gm)].map((x) => x[1]);
      assert.deepEqual(names.slice(0, 4), [
        'message_start',
        'content_block_start',
        'ping',
        'content_block_delta',
      ]);
      assert.deepEqual(names.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
    });

    it('streams a tool call as input_json_delta; the final message holds the parsed input', async function () {
      const stream = client.messages.stream({
        model: 'echo',
        max_tokens: 100,
        tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
        messages: [{ role: 'user', content: 'call lookup {"q":"tea"}' }],
      });
      const deltas: string[] = [];
      for await (const e of stream) {
        if (e.type === 'content_block_delta') deltas.push(e.delta.type);
      }
      const final = await stream.finalMessage();
      assert.ok(deltas.includes('input_json_delta'), deltas.join());
      assert.equal(final.stop_reason, 'tool_use');
      const use = final.content[0];
      assert.ok(use?.type === 'tool_use');
      assert.deepEqual([use.name, use.input], ['lookup', { q: 'tea' }]);
    });
  });

  describe('count_tokens', function () {
    it('estimates input tokens without any request to the backend', async function () {
      const before = backend.requests.length;
      const counted = await client.messages.countTokens({
        model: 'anthropic-model-echo',
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'How many tokens is this sentence?' }],
      });
      assert.ok(counted.input_tokens > 0);
      assert.equal(backend.requests.length, before, 'count_tokens called the backend');
    });
  });

  describe('models', function () {
    it('lists the caller’s chat models and usable agents in the vendor’s shape, not another tenant’s agent', async function () {
      const page = await client.models.list({ limit: 100 });
      const ids = page.data.map((m) => m.id);
      assert.deepEqual(ids, [
        'anthropic-model-echo',
        'anthropic-model-echo-a',
        `anthropic-agent-${agentA}`,
      ]);
      assert.ok(!ids.includes(`anthropic-agent-${agentB}`));
      const agent = page.data[2];
      assert.equal(agent?.type, 'model');
      assert.equal(agent?.display_name, 'helper');
      assert.match(agent?.created_at ?? '', /^\d{4}-\d\d-\d\dT/);
    });

    it('pages with limit and after_id (has_more, first_id, last_id)', async function () {
      const first = await call(`${api.url}/anthropic/v1/models?limit=2`, {
        headers: { 'x-api-key': memberKey, 'x-aiplane-organization': a.organizationId },
      });
      const body = first.json() as {
        data: { id: string }[];
        has_more: boolean;
        first_id: string;
        last_id: string;
      };
      assert.deepEqual(
        [body.data.length, body.has_more, body.first_id, body.last_id],
        [2, true, 'anthropic-model-echo', 'anthropic-model-echo-a'],
      );
      const rest = await client.models.list({ limit: 2, after_id: body.last_id });
      assert.deepEqual(
        rest.data.map((m) => m.id),
        [`anthropic-agent-${agentA}`],
      );
      assert.equal(rest.has_more, false);
    });

    it('retrieves a model by prefixed id or bare name, and an agent by its id', async function () {
      assert.equal((await client.models.retrieve('echo')).id, 'anthropic-model-echo');
      assert.equal((await client.models.retrieve('anthropic-model-echo-a')).display_name, 'echo-a');
      assert.equal(
        (await client.models.retrieve(`anthropic-agent-${agentA}`)).display_name,
        'helper',
      );
    });

    it('answers 404 not_found_error, never 403, for another tenant’s agent (models/{id} and as a message’s model)', async function () {
      const viaModels = await vendorError(client.models.retrieve(`anthropic-agent-${agentB}`));
      assert.equal(viaModels.status, 404);
      assert.equal(viaModels.type, 'not_found_error');
      const viaMessage = await vendorError(
        client.messages.create({
          model: `anthropic-agent-${agentB}`,
          max_tokens: 10,
          messages: [{ role: 'user', content: 'x' }],
        }),
      );
      assert.equal(viaMessage.status, 404);
      assert.equal(viaMessage.type, 'not_found_error');
    });
  });

  describe('agents', function () {
    it('gives the model the passages of the agent’s documents nearest the question, read with the caller’s access (document_ids)', async function () {
      const owner = acting(api.url, 'member', a.organizationId);
      const baker = readFileSync(
        join(import.meta.dirname, 'fixtures', 'knowledge', 'home-baker.md'),
      );
      const up = await owner.upload({
        folder_id: 'null',
        file: { data: baker, filename: 'home-baker.md', type: 'text/markdown' },
      });
      assert.equal(up.status, 201, up.text);
      const file = await fileWithStatus(owner, (up.json() as { id: string }).id, 'RAG Available');
      const made = await memberInA('POST', '/v1/agents', {
        name: 'baker',
        instructions: 'You answer baking questions.',
        model: 'echo',
        document_ids: [file.id],
      });
      assert.equal(made.status, 201, made.text);
      const agent = made.json() as { id: string; document_ids: string[] };
      assert.deepEqual(agent.document_ids, [file.id]);
      const ask = (c: Anthropic) =>
        c.messages.create({
          model: `anthropic-agent-${agent.id}`,
          max_tokens: 50,
          messages: [{ role: 'user', content: 'How often should I feed my sourdough starter?' }],
        });
      const systemOf = () => String(lastChat().messages[0]?.content);

      await ask(client);
      assert.match(systemOf(), /^You answer baking questions\.\n\nPassages from the documents/);
      assert.match(systemOf(), /\[1\] home-baker\.md\n/);
      assert.match(systemOf(), /Feed it twice a day/);

      // Another member of the organization, who may use the agent (shared with them explicitly:
      // docs/adr/0035) but may not read the file, gets no passage of it.
      await addMembers(a.organizationId, ['admin']);
      try {
        const usesIt = await memberInA('POST', `/v1/agents/${agent.id}/shares`, {
          target_type: 'user',
          target_id: keycloak().users.admin.id,
          role: 'viewer',
        });
        assert.equal(usesIt.status, 200, usesIt.text);
        const stranger = vendorClient(api.url, a.organizationId, {
          authToken: await tokenFor('admin', ORG_SCOPE),
        });
        await ask(stranger);
        assert.equal(systemOf(), 'You answer baking questions.');
        const shared = await shareWith(
          owner,
          `/v1/files/${file.id}`,
          'user',
          keycloak().users.admin.id,
          'viewer',
        );
        assert.ok(shared.status === 200 || shared.status === 201, shared.text);
        await ask(stranger);
        assert.match(systemOf(), /Feed it twice a day/);
      } finally {
        await removeMembers(a.organizationId, ['admin']);
      }
    });

    it('makes the agent’s instructions the system prompt and its model the backend', async function () {
      const m = await client.messages.create({
        model: `anthropic-agent-${agentA}`,
        max_tokens: 50,
        system: 'And the caller’s own.',
        messages: [{ role: 'user', content: 'who are you' }],
      });
      assert.equal(m.model, `anthropic-agent-${agentA}`);
      assert.deepEqual(lastChat().messages[0], {
        role: 'system',
        content: 'You are the helper agent.\n\nAnd the caller’s own.',
      });
      assert.equal(lastChat().model, 'org/echo-7b');
    });
  });

  describe('authentication', function () {
    it('accepts the API key as X-Api-Key (apiKey) and as a bearer token (authToken), and a JWT', async function () {
      const ask = {
        model: 'echo',
        max_tokens: 10,
        messages: [{ role: 'user' as const, content: 'k' }],
      };
      assert.equal((await sdk({ apiKey: memberKey }).messages.create(ask)).content.length, 1);
      assert.equal((await sdk({ authToken: memberKey }).messages.create(ask)).content.length, 1);
      const jwt = await tokenFor('member', ORG_SCOPE);
      assert.equal((await sdk({ authToken: jwt }).messages.create(ask)).content.length, 1);
    });

    it('answers 401 authentication_error for a wrong key and 403 permission_error without can_access_api', async function () {
      const ask = {
        model: 'echo',
        max_tokens: 10,
        messages: [{ role: 'user' as const, content: 'k' }],
      };
      const bad = await vendorError(
        sdk({ apiKey: 'sk-svc-v1-not-a-real-key' }).messages.create(ask),
      );
      assert.equal(bad.status, 401);
      assert.equal(bad.type, 'authentication_error');
      const outsider = await vendorError(
        sdk({ authToken: await tokenFor('outsider') }).messages.create(ask),
      );
      assert.equal(outsider.status, 403);
      assert.equal(outsider.type, 'permission_error');
    });
  });

  describe('retries', function () {
    it('retries a backend that fails twice, then answers', async function () {
      const before = backend.requests.length;
      backend.failNext(2, 503);
      const m = await client.messages.create({
        model: 'echo',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'persist' }],
      });
      assert.deepEqual(m.content, [{ type: 'text', text: 'echo: persist' }]);
      assert.equal(backend.requests.length - before, 3);
    });

    it('retries a 429 honouring its Retry-After', async function () {
      const before = backend.requests.length;
      backend.failNext(1, 429, '1');
      const started = Date.now();
      const m = await client.messages.create({
        model: 'echo',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'again' }],
      });
      assert.deepEqual(m.content, [{ type: 'text', text: 'echo: again' }]);
      assert.equal(backend.requests.length - before, 2);
      assert.ok(Date.now() - started >= 1000, 'did not wait for Retry-After');
    });

    it('answers 529 overloaded_error in the vendor’s shape when the backend fails four times', async function () {
      const before = backend.requests.length;
      backend.failNext(4, 503);
      const err = await vendorError(
        client.messages.create({
          model: 'echo',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'doomed' }],
        }),
      );
      assert.equal(err.status, 529);
      assert.equal(err.type, 'overloaded_error');
      assert.equal(backend.requests.length - before, 4, 'one call and three retries');
    });

    it('retries a stream before its first byte too', async function () {
      backend.failNext(2, 503);
      const final = await client.messages
        .stream({ model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'later' }] })
        .finalMessage();
      assert.deepEqual(final.content, [{ type: 'text', text: 'echo: later' }]);
    });
  });
  describe('time, the client going away, metrics', function () {
    it('aborts the backend call when the client goes away', async function () {
      const before = backend.requests.length;
      backend.stallNext(1, 30_000);
      const ac = new AbortController();
      const pending = client.messages.create(
        { model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'slow' }] },
        { signal: ac.signal },
      );
      await waitFor('the backend to get the call', () =>
        Promise.resolve(backend.requests.length > before),
      );
      ac.abort();
      await assert.rejects(pending);
      await waitFor(
        'the backend call to be aborted',
        () => Promise.resolve(backend.requests[before]?.closedByCaller === true),
        { timeoutMs: 10_000 },
      );
    });

    it('answers 500 api_error when the backend does not answer within the request timeout, and counts it on the metrics port', async function () {
      const timed = await startTestApi('messages-api-timeout', {
        AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
        AIPLANE_INFERENCE_TIMEOUT_MS: '1000',
        AIPLANE_API_METRICS_PORT: '0',
      });
      try {
        const acme = keycloak().organization.id;
        const model = await caller(timed.url, 'admin', acme)('POST', '/v1/models', {
          name: 'slow',
          mode: 'chat',
          base_url: backend.baseUrl,
          api_key: BACKEND_KEY,
          platform_wide: true,
        });
        assert.equal(model.status, 201, model.text);
        const before = backend.requests.length;
        backend.stallNext(1, 30_000);
        const started = Date.now();
        const r = await call(`${timed.url}/anthropic/v1/messages`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await tokenFor('admin', ORG_SCOPE)}`,
            'x-aiplane-organization': acme,
          },
          body: { model: 'slow', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
        });
        assert.equal(r.status, 500, r.text);
        assert.equal((r.json() as { error: { type: string } }).error.type, 'api_error');
        assert.ok(Date.now() - started < 10_000, 'the timeout did not end the request');
        await waitFor(
          'the backend call to be aborted',
          () => Promise.resolve(backend.requests[before]?.closedByCaller === true),
          { timeoutMs: 10_000 },
        );
        // Served on the metrics port (AIPLANE_API_METRICS_PORT), not the public one.
        const metrics = await call(`http://127.0.0.1:${timed.metricsPort}/metrics`);
        assert.match(
          metrics.text,
          new RegExp(
            `aiplane_inference_requests_total\\{model="slow",organization="${acme}",stream="false",outcome="backend_error"\\} 1`,
          ),
        );
        assert.equal((await call(`${timed.url}/metrics`)).status, 404);
      } finally {
        await timed.close();
      }
    });

    it('counts requests, time to first token and tokens per model and organization, and logs no prompt text', async function () {
      const text = await api.registry.metrics();
      const org = a.organizationId;
      assert.match(
        text,
        new RegExp(
          `aiplane_inference_requests_total\\{model="echo",organization="${org}",stream="true",outcome="ok"\\} [1-9]`,
        ),
      );
      assert.match(
        text,
        new RegExp(
          `aiplane_inference_tokens_total\\{model="echo",organization="${org}",direction="output"\\} [1-9]`,
        ),
      );
      assert.match(
        text,
        new RegExp(
          `aiplane_inference_time_to_first_token_seconds_count\\{model="echo",organization="${org}"\\} [1-9]`,
        ),
      );
      assert.match(text, /aiplane_inference_backend_retries_total\{model="echo"\} [1-9]/);
      assert.match(
        text,
        new RegExp(
          `aiplane_inference_requests_total\\{model="echo",organization="${org}",stream="false",outcome="backend_error"\\} [1-9]`,
        ),
      );
      const log = readFileSync(join(environment().controlPlane.logDir, 'messages-api.log'), 'utf8');
      for (const prompt of ['hello there', 'second then STOP', 'echo: persist']) {
        assert.ok(!log.includes(prompt), `the API log holds "${prompt}"`);
      }
    });
  });
});
