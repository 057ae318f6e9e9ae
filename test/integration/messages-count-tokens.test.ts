import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { miniLmDir, startOpenAiTestBackend, type OpenAiTestBackend, waitFor } from '@aiplane/hack';
import { keycloak, ORG_SCOPE, startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import { caller } from './fixtures/index.js';
import { environment } from './harness.js';

/** @huggingface/tokenizers' declarations do not resolve under NodeNext: what the test uses. */
const Tokenizer = HfTokenizer as unknown as new (
  json: object,
  config: object,
) => { encode(text: string, o: { add_special_tokens: boolean }): { ids: number[] } };

/** The documented overhead (docs/adr/0024): per message, per image. */
const PER_MESSAGE = 4;
const PER_IMAGE = 1600;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A request with every kind of text count_tokens reads; words WordPiece splits finely. */
const SYSTEM = 'You are terse. Answer in JSON, e.g. {"ok": true}.';
const QUESTION = 'Is it 3.14 or 3,14? I’d say: it’s 22/7 ≈ 3.142857… no?';
const TOOL_INPUT = { city: 'Reykjavík', units: 'metric' };
const RESULT = 'Temp −3 °C; wind 12 m/s (NNW).';
const TOOL = {
  name: 'weather',
  description: 'The weather in a city right now.',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' }, units: { type: 'string' } },
  },
};
/** Each text as count_tokens reads it, in the documented order. */
const TEXTS = [
  SYSTEM,
  QUESTION,
  'weather',
  JSON.stringify(TOOL_INPUT),
  RESULT,
  TOOL.name,
  TOOL.description,
  JSON.stringify(TOOL.input_schema),
];
const MESSAGES: Anthropic.MessageParam[] = [
  { role: 'user', content: QUESTION },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: TOOL_INPUT }],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: RESULT },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ],
  },
];

describe('messages API: count_tokens with the model’s own tokenizer.json (all-MiniLM-L6-v2), no backend call', function () {
  this.timeout(60_000);
  let api: TestApi;
  let backend: OpenAiTestBackend;
  let store: string;
  let client: Anthropic;
  let wordPiece: InstanceType<typeof Tokenizer>;
  const estimate = () =>
    Math.ceil(TEXTS.reduce((n, t) => n + t.length, 0) / 4) +
    MESSAGES.length * PER_MESSAGE +
    PER_IMAGE;
  const count = (model: string) =>
    client.messages.countTokens({ model, system: SYSTEM, messages: MESSAGES, tools: [TOOL] });

  before(async function () {
    store = await mkdtemp(join(tmpdir(), 'count-tokens-store-'));
    backend = await startOpenAiTestBackend();
    api = await startTestApi('messages-count-tokens', {
      AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
      AIPLANE_MODEL_STORE_DIR: store,
    });
    const acme = keycloak().organization.id;
    // Where a model-installer download of "minilm" would have put it.
    const source = join(miniLmDir(), 'tokenizer.json');
    await mkdir(join(store, acme, 'minilm'), { recursive: true });
    await copyFile(source, join(store, acme, 'minilm', 'tokenizer.json'));
    wordPiece = new Tokenizer(JSON.parse(await readFile(source, 'utf8')) as object, {});
    const admin = caller(api.url, 'admin', acme);
    for (const [name, tokenizer] of [
      ['minilm-chat', 'minilm/tokenizer.json'],
      ['no-file-chat', 'not-downloaded/tokenizer.json'],
      ['plain-chat', undefined],
    ] as const) {
      const r = await admin('POST', '/v1/models', {
        name,
        mode: 'chat',
        base_url: backend.baseUrl,
        ...(tokenizer ? { tokenizer } : {}),
      });
      assert.equal(r.status, 201, r.text);
    }
    client = new Anthropic({
      baseURL: `${api.url}/anthropic`,
      apiKey: null,
      authToken: await tokenFor('member', ORG_SCOPE),
      maxRetries: 0,
      defaultHeaders: { 'x-aiplane-organization': acme },
    });
  });

  after(async function () {
    await Promise.all([api?.close(), backend?.close()]);
    if (store) await rm(store, { recursive: true, force: true });
  });

  it('answers exactly the tokenizer’s count of every text plus the documented overhead, unlike the chars/4 estimate, calling no backend', async function () {
    const before = backend.requests.length;
    const counted = await count('anthropic-model-minilm-chat');
    const tokens = TEXTS.reduce(
      (n, t) => n + wordPiece.encode(t, { add_special_tokens: false }).ids.length,
      0,
    );
    assert.equal(counted.input_tokens, tokens + MESSAGES.length * PER_MESSAGE + PER_IMAGE);
    assert.notEqual(counted.input_tokens, estimate(), 'the texts must tell the two counts apart');
    // A bare name is the same model; asking twice uses the loaded tokenizer.
    assert.equal((await count('minilm-chat')).input_tokens, counted.input_tokens);
    assert.equal(backend.requests.length, before, 'count_tokens called the backend');
  });

  it('answers the documented estimate for a model without a tokenizer, and for one whose file is missing (logged once, without the request’s text)', async function () {
    const before = backend.requests.length;
    assert.equal((await count('plain-chat')).input_tokens, estimate());
    assert.equal((await count('no-file-chat')).input_tokens, estimate());
    assert.equal((await count('no-file-chat')).input_tokens, estimate());
    assert.equal(backend.requests.length, before, 'count_tokens called the backend');
    const logFile = join(environment().controlPlane.logDir, 'messages-count-tokens.log');
    const lines = async () => (await readFile(logFile, 'utf8')).split('\n');
    const missing = (all: string[]) =>
      all.filter((l) => l.includes('not-downloaded/tokenizer.json'));
    await waitFor(
      'the missing tokenizer is logged',
      async () => missing(await lines()).length > 0,
      {
        timeoutMs: 10_000,
      },
    );
    const all = await lines();
    const warnings = { found: missing(all), all: all.join('\n') };
    assert.equal(warnings.found.length, 1, warnings.found.join('\n'));
    assert.match(warnings.found[0] ?? '', /"reason":"missing"/);
    for (const text of [QUESTION, RESULT, SYSTEM]) {
      assert.ok(!warnings.all.includes(text), 'the log holds request text');
    }
  });
});
