import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ManagedProcess, startOpenAiTestBackend, type OpenAiTestBackend } from '@aiplane/hack';
import { createApiKey, startTestApi, type TestApi } from './api-helpers.js';
import {
  addMembers,
  caller,
  provisionTenants,
  removeMembers,
  type Tenant,
} from './fixtures/index.js';
import { startOperatorProcess } from './operator-process.js';
import { newSecret } from './secrets.js';

/** The vendor's command-line tool as npm installed it (hack/lib/install-deps.sh: its native binary). */
const CLAUDE = join(
  dirname(createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/package.json')),
  'bin',
  'claude.exe',
);
const BACKEND_KEY = newSecret('sk-backend');
const MODEL = 'anthropic-model-coder';
const INSTRUCTIONS = 'You are the reviewer agent of the platform.';

interface ChatBody {
  model: string;
  messages: { role: string; content: unknown }[];
  tools?: { type: string; function: { name: string } }[];
  stream?: boolean;
}
/** What `claude -p --output-format json` prints: the run's one result. */
interface CliResult {
  type: string;
  subtype: string;
  is_error: boolean;
  result: string;
  num_turns: number;
}
/** One call the tool made to the platform, and what the platform answered. */
interface Seen {
  method: string;
  url: string;
  status: number;
}

/**
 * A recording pass-through in front of the API: every call the tool makes, with the API's
 * status (the tool may make calls whose failure it hides, e.g. a title or a quota check).
 */
async function recordingProxy(
  target: string,
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const to = new URL(target);
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const up = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the vendor’s command-line tool (@anthropic-ai/claude-code) against /anthropic', function () {
  this.timeout(180_000);
  let api: TestApi;
  let backend: OpenAiTestBackend;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let operator: ManagedProcess | undefined;
  let tenant: Tenant;
  let memberKey: string;
  let agentId: string;
  let home: string;

  /**
   * Runs `claude -p <prompt> --model <model> --output-format json` as a user would, with only
   * the environment given here: the platform as its base URL, the platform's API key as its
   * token, a throwaway home, non-essential traffic (telemetry, updates, reports) off, and every
   * model alias (the small/fast one included) set to the same platform model.
   */
  const claude = (
    model: string,
    prompt: string,
    auth: { ANTHROPIC_API_KEY: string } | { ANTHROPIC_AUTH_TOKEN: string },
  ) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        CLAUDE,
        ['-p', prompt, '--model', model, '--output-format', 'json'],
        {
          cwd: home,
          timeout: 150_000,
          maxBuffer: 16 * 1024 * 1024,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            TMPDIR: home,
            CLAUDE_CONFIG_DIR: join(home, '.claude'),
            ANTHROPIC_BASE_URL: `${proxy.url}/anthropic`,
            ANTHROPIC_CUSTOM_HEADERS: `X-Aiplane-Organization: ${tenant.organizationId}`,
            ANTHROPIC_SMALL_FAST_MODEL: model,
            ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_TELEMETRY: '1',
            DISABLE_AUTOUPDATER: '1',
            DISABLE_ERROR_REPORTING: '1',
            ...auth,
          },
        },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      child.stdin?.end(); // no piped input: the prompt is the argument
    });

  before(async function () {
    this.timeout(300_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    home = mkdtempSync(join(tmpdir(), 'claude-code-home-'));
    backend = await startOpenAiTestBackend({ apiKey: BACKEND_KEY, models: ['org/coder-7b'] });
    api = await startTestApi('claude-code-cli', { AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true' });
    proxy = await recordingProxy(api.url);
    [tenant] = await provisionTenants(api.url, 'cc');
    await addMembers(tenant.organizationId, ['member']);
    const admin = caller(api.url, 'admin', tenant.organizationId);
    const model = await admin('POST', '/v1/models', {
      name: 'coder',
      mode: 'chat',
      base_url: backend.baseUrl,
      backend_model: 'org/coder-7b',
      api_key: BACKEND_KEY,
    });
    assert.equal(model.status, 201, model.text);
    const agent = await caller(api.url, 'member', tenant.organizationId)('POST', '/v1/agents', {
      name: 'reviewer',
      instructions: INSTRUCTIONS,
      model: 'coder',
    });
    assert.equal(agent.status, 201, agent.text);
    agentId = (agent.json() as { id: string }).id;
    memberKey = await createApiKey(api.url, 'member', 'claude-code');
  });

  after(async function () {
    if (tenant) await removeMembers(tenant.organizationId, ['member']);
    await operator?.stop();
    await Promise.all([proxy?.close(), api?.close(), backend?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /**
   * Runs the tool and checks what every run must show: exit 0, a successful result, every call
   * it made answered 2xx by the platform, and every backend request for the catalogue's model.
   * Returns the result and the chat requests the backend received, in order.
   */
  async function completes(
    model: string,
    prompt: string,
    auth: Parameters<typeof claude>[2],
  ): Promise<{ result: CliResult; chats: ChatBody[] }> {
    const sentBefore = backend.requests.length;
    const seenBefore = proxy.seen.length;
    const run = await claude(model, prompt, auth);
    assert.equal(run.code, 0, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
    const result = JSON.parse(run.stdout) as CliResult;
    assert.deepEqual([result.type, result.subtype, result.is_error], ['result', 'success', false]);
    const calls = proxy.seen.slice(seenBefore);
    assert.ok(calls.length > 0, 'the tool called the platform');
    for (const c of calls) {
      assert.ok(c.status >= 200 && c.status < 300, `${c.method} ${c.url} answered ${c.status}`);
    }
    const chats = backend.requests.slice(sentBefore).map((r) => r.body as ChatBody);
    assert.ok(chats.length > 0, 'the backend received the prompt');
    for (const chat of chats) assert.equal(chat.model, 'org/coder-7b');
    return { result, chats };
  }

  /** The last user text of a chat request, which must end with the prompt. */
  const promptAsSent = (chat: ChatBody | undefined, prompt: string): string => {
    const lastUser = [...(chat?.messages ?? [])].reverse().find((m) => m.role === 'user');
    const text = typeof lastUser?.content === 'string' ? lastUser.content : '';
    assert.ok(text.endsWith(prompt), `the prompt reached the backend: ${JSON.stringify(text)}`);
    return text;
  };

  it('completes a prompt with anthropic-model-<name> and the API key as X-Api-Key, its system prompt and tools translated', async function () {
    const prompt = 'say the magic word';
    const { result, chats } = await completes(MODEL, prompt, { ANTHROPIC_API_KEY: memberKey });
    assert.equal(chats.length, 1);
    const [chat] = chats as [ChatBody];
    // The backend's deterministic answer to the prompt as it arrived, printed by the tool.
    assert.equal(result.result, `echo: ${promptAsSent(chat, prompt)}`);
    assert.equal(chat.stream, true, 'the tool streams');
    const system = chat.messages[0];
    assert.equal(system?.role, 'system');
    assert.match(String(system?.content), /Claude/);
    assert.equal(chat.messages.filter((m) => m.role === 'system').length, 1);
    const tools = (chat.tools ?? []).map((t) => [t.type, t.function.name]);
    assert.ok(
      tools.some(([, name]) => name === 'Bash'),
      `the tool’s own tools are offered to the model: ${JSON.stringify(tools)}`,
    );
    assert.ok(tools.every(([type]) => type === 'function'));
  });

  it('completes a prompt with anthropic-agent-<uuid> and the API key as a bearer token, the agent’s instructions first in the system prompt', async function () {
    const prompt = 'review this change';
    const { result, chats } = await completes(`anthropic-agent-${agentId}`, prompt, {
      ANTHROPIC_AUTH_TOKEN: memberKey,
    });
    assert.equal(chats.length, 1);
    const [chat] = chats as [ChatBody];
    assert.equal(result.result, `echo: ${promptAsSent(chat, prompt)}`);
    const system = String(chat.messages[0]?.content);
    assert.equal(chat.messages[0]?.role, 'system');
    assert.ok(system.startsWith(`${INSTRUCTIONS}\n\n`), system);
    assert.match(system, /Claude/, 'the tool’s own system prompt follows');
  });

  it('runs its own Read tool when the model asks for it and sends the result back as a tool message', async function () {
    const file = join(home, 'note.txt');
    writeFileSync(file, 'the platform answered\n');
    const prompt = `call Read {"file_path":"${file}"}`;
    const { result, chats } = await completes(MODEL, prompt, { ANTHROPIC_API_KEY: memberKey });
    assert.equal(result.num_turns, 2);
    assert.equal(chats.length, 2, 'one request for the tool call, one with its result');
    promptAsSent(chats[0], prompt);
    const [asked, toolCall, answer] = (chats[1] as ChatBody).messages.slice(-3) as [
      ChatBody['messages'][number] & { content: string },
      {
        role: string;
        tool_calls?: { id: string; function: { name: string; arguments: string } }[];
      },
      { role: string; tool_call_id?: string; content: string },
    ];
    assert.ok(asked.content.endsWith(prompt));
    const use = toolCall.tool_calls?.[0];
    assert.equal(toolCall.role, 'assistant');
    assert.deepEqual(
      [use?.function.name, JSON.parse(use?.function.arguments ?? '{}')],
      ['Read', { file_path: file }],
    );
    assert.equal(answer.role, 'tool');
    assert.equal(answer.tool_call_id, use?.id);
    assert.match(answer.content, /the platform answered/);
    assert.equal(result.result, `tool said: ${answer.content}`);
  });
});
