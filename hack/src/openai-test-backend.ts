import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the backend received (tests prove what reached it, and that nothing did). */
export interface OpenAiTestRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Set when the caller closed the connection while the backend stalled (see stallNext). */
  closedByCaller?: boolean;
}

export interface OpenAiTestBackendOptions {
  /** The model names `/v1/models` lists (any name is answered). */
  models?: string[];
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** Milliseconds between streamed chunks (default 0). */
  chunkDelayMs?: number;
  /** Awaited before each chat request is answered (a test acts between a model's steps). */
  beforeAnswer?: (body: unknown) => Promise<void> | void;
  /**
   * Every chat request is answered this text (one chunk per word when streaming, finish
   * `stop`), whatever it asked: the benchmarks' backend, with no artificial delay.
   */
  fixedAnswer?: string;
}

export interface OpenAiTestBackend {
  /** `http://127.0.0.1:<port>/v1`: what a catalogue entry's base_url is. */
  baseUrl: string;
  port: number;
  requests: OpenAiTestRequest[];
  /** The next `count` chat requests answer `status` (with `Retry-After: retryAfter` if given). */
  failNext(count: number, status?: number, retryAfter?: string): void;
  /** The next `count` chat requests wait `ms` before answering (or until the caller leaves). */
  stallNext(count: number, ms: number): void;
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string; image_url?: { url: string } }[] | null;
  tool_calls?: unknown[];
}
interface ChatBody {
  model?: string;
  messages?: ChatMessage[];
  max_tokens?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  stop?: string[];
  tools?: { function: { name: string } }[];
  tool_choice?: unknown;
}

/**
 * A deterministic OpenAI-compatible model server for tests (`/v1/chat/completions`, streaming
 * and not, `/v1/models`). Its rules:
 *
 * - A "token" is a whitespace-separated word; `prompt_tokens` counts the words of every
 *   message's text, `completion_tokens` those of the answer.
 * - When tools are offered (and `tool_choice` is not `none`) and the last user text contains
 *   `call <tool>` for an offered tool, it answers a call of that tool (finish `tool_calls`);
 *   its arguments are the JSON object written right after the tool's name, else `{}`.
 * - When the last message is a tool result, it answers `tool said: <result>`, unless the
 *   result itself says `call <tool>` of an offered tool: then it calls that tool (a model
 *   that never stops calling tools, for step bounds).
 * - Otherwise it answers `echo: <last user text>`, plus ` [images: N]` when the last user
 *   message carries N images.
 * - `max_tokens` cuts the answer to that many words (finish `length`); a `stop` string in the
 *   answer cuts it before the string (finish `stop`, and vLLM's `stop_reason` naming it).
 * - Streaming sends one chunk per word (tool arguments in two pieces), then the finish, the
 *   usage chunk when `stream_options.include_usage`, and `data: [DONE]`.
 * - With `fixedAnswer`, every chat request gets that text instead (benchmarks).
 */
export async function startOpenAiTestBackend(
  opts: OpenAiTestBackendOptions = {},
): Promise<OpenAiTestBackend> {
  const requests: OpenAiTestRequest[] = [];
  let failures: { count: number; status: number; retryAfter?: string } = { count: 0, status: 503 };
  let stalls = { count: 0, ms: 0 };
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const record: OpenAiTestRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
    };
    requests.push(record);
    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      json(res, 401, { error: { message: 'invalid api key', type: 'invalid_request_error' } });
      return;
    }
    if (req.method === 'GET' && path === '/v1/models') {
      json(res, 200, {
        object: 'list',
        data: (opts.models ?? []).map((id) => ({
          id,
          object: 'model',
          created: 0,
          owned_by: 'test',
        })),
      });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
      return;
    }
    if (failures.count > 0) {
      failures.count -= 1;
      res.writeHead(failures.status, {
        'content-type': 'application/json',
        ...(failures.retryAfter === undefined ? {} : { 'retry-after': failures.retryAfter }),
      });
      res.end(JSON.stringify({ error: { message: `injected failure ${failures.status}` } }));
      return;
    }
    if (stalls.count > 0) {
      stalls.count -= 1;
      record.closedByCaller = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), stalls.ms);
        res.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (record.closedByCaller) return;
    }
    const chat = (body ?? {}) as ChatBody;
    await opts.beforeAnswer?.(body);
    const answer =
      opts.fixedAnswer === undefined
        ? answerOf(chat)
        : { text: opts.fixedAnswer, finish: 'stop' as const, tokens: words(opts.fixedAnswer) };
    const usage = { prompt_tokens: promptTokens(chat), completion_tokens: answer.tokens };
    usage.completion_tokens = answer.tokens;
    const id = `chatcmpl-${randomUUID()}`;
    const model = chat.model ?? 'test';
    if (chat.stream !== true) {
      json(res, 200, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: answer.text,
              ...(answer.call
                ? {
                    tool_calls: [
                      {
                        id: `call_${randomUUID()}`,
                        type: 'function',
                        function: { name: answer.call.name, arguments: answer.call.arguments },
                      },
                    ],
                  }
                : {}),
            },
            finish_reason: answer.finish,
            stop_reason: answer.matched ?? null,
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = async (chunk: unknown) => {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (opts.chunkDelayMs) await new Promise((r) => setTimeout(r, opts.chunkDelayMs));
    };
    const base = {
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model,
    };
    const delta = (d: unknown, finish: string | null = null, extra = {}) => ({
      ...base,
      choices: [{ index: 0, delta: d, finish_reason: finish, ...extra }],
    });
    await send(delta({ role: 'assistant', content: '' }));
    if (answer.text) {
      const words = answer.text.split(/(?<= )/);
      for (const w of words) await send(delta({ content: w }));
    }
    if (answer.call) {
      const args = answer.call.arguments;
      const half = Math.floor(args.length / 2);
      await send(
        delta({
          tool_calls: [
            {
              index: 0,
              id: `call_${randomUUID()}`,
              type: 'function',
              function: { name: answer.call.name, arguments: '' },
            },
          ],
        }),
      );
      for (const piece of [args.slice(0, half), args.slice(half)]) {
        await send(delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
      }
    }
    await send(delta({}, answer.finish, { stop_reason: answer.matched ?? null }));
    if (chat.stream_options?.include_usage === true) {
      await send({
        ...base,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    failNext(count, status = 503, retryAfter) {
      failures = { count, status, ...(retryAfter === undefined ? {} : { retryAfter }) };
    },
    stallNext(count, ms) {
      stalls = { count, ms };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function textOf(m: ChatMessage | undefined): string {
  if (!m || m.content === undefined || m.content === null) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('\n');
}

function words(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

function promptTokens(chat: ChatBody): number {
  return (chat.messages ?? []).reduce((n, m) => n + words(textOf(m)), 0);
}

interface Answer {
  text: string | null;
  call?: { name: string; arguments: string };
  finish: 'stop' | 'length' | 'tool_calls';
  matched?: string;
  tokens: number;
}

function answerOf(chat: ChatBody): Answer {
  const messages = chat.messages ?? [];
  const last = messages[messages.length - 1];
  const offered = chat.tool_choice === 'none' ? [] : (chat.tools ?? []).map((t) => t.function.name);
  if (last?.role === 'tool') {
    return callIn(textOf(last), offered) ?? cut(`tool said: ${textOf(last)}`, chat);
  }
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const text = textOf(lastUser);
  const call = callIn(text, offered);
  if (call) return call;
  const images = Array.isArray(lastUser?.content)
    ? lastUser.content.filter((p) => p.type === 'image_url').length
    : 0;
  return cut(`echo: ${text}${images > 0 ? ` [images: ${images}]` : ''}`, chat);
}

/** A call of the first offered tool that `text` asks for (`call <tool> {args}`). */
function callIn(text: string, offered: string[]): Answer | undefined {
  for (const name of offered) {
    const at = text.indexOf(`call ${name}`);
    if (at === -1) continue;
    const rest = text.slice(at + `call ${name}`.length).trim();
    let args = '{}';
    if (rest.startsWith('{')) {
      try {
        args = JSON.stringify(JSON.parse(rest.slice(0, rest.lastIndexOf('}') + 1)));
      } catch {
        args = '{}';
      }
    }
    return {
      text: null,
      call: { name, arguments: args },
      finish: 'tool_calls',
      tokens: words(args) + 1,
    };
  }
  return undefined;
}

function cut(full: string, chat: ChatBody): Answer {
  let text = full;
  let matched: string | undefined;
  for (const s of chat.stop ?? []) {
    const at = text.indexOf(s);
    if (at !== -1) {
      text = text.slice(0, at);
      matched = s;
    }
  }
  const all = text.split(' ');
  if (chat.max_tokens !== undefined && words(text) > chat.max_tokens) {
    const kept = all
      .filter((w) => w !== '')
      .slice(0, chat.max_tokens)
      .join(' ');
    return { text: kept, finish: 'length', tokens: chat.max_tokens };
  }
  return { text, finish: 'stop', ...(matched ? { matched } : {}), tokens: words(text) };
}
