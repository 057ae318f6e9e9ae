import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@aiplane/lib';
import { ERROR_CODES } from '@aiplane/lib/errors';
import { listAllTools, type FetchLike } from '@aiplane/lib/mcp';

/**
 * The tools of an agent's MCP servers, reached through the MCP gateway as the calling user
 * (docs/adr/0029): the gateway applies the user's access, their linked credential and the
 * server's allowlist, exactly as for the user's own MCP client.
 */

/** A tool as the model is offered it. */
export interface AgentTool {
  /** The name the model sees: the MCP name, made safe and unique (`^[a-zA-Z0-9_-]{1,64}$`). */
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** One tool call's outcome, as the model reads it. */
export interface ToolOutcome {
  text: string;
  isError: boolean;
}

/** A server whose tools could not be listed for the caller, and the gateway's reason. */
export interface UnavailableServer {
  serverId: string;
  reason: string;
}

/** The open MCP sessions of one agent request. */
export interface Toolbox {
  readonly tools: readonly AgentTool[];
  readonly unavailable: readonly UnavailableServer[];
  has(name: string): boolean;
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>;
  /** Ends every session (DELETE through the gateway); never throws. */
  close(): Promise<void>;
}

/** How the caller authenticated: passed on to the gateway unchanged in meaning. */
export interface CallerCredential {
  /** A platform API key (sent as `X-Api-Key`) or a JWT (sent as a bearer token). */
  kind: 'api_key' | 'bearer';
  value: string;
}

export interface AgentToolsOptions {
  /** The gateway's base URL; null when the deployment has none. */
  gatewayUrl: string | null;
  fetch: FetchLike;
  /** How long opening a session and listing its tools may take. */
  timeoutMs: number;
  /** How long one tool call may take (the request's own deadline also applies). */
  callTimeoutMs: number;
  logger: Logger;
}

const CLIENT_INFO = { name: 'aiplane-agent', version: '0.1.0' };
/** Names the vendor's API (and OpenAI's functions) accept. */
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** More tools than this from one agent's servers are not offered (a model's context is finite). */
export const MAX_AGENT_TOOLS = 128;
/** A tool's answer longer than this is cut before it goes to the model. */
export const MAX_TOOL_RESULT_CHARS = 100_000;
/** Sessions opened at once for one request (the gateway caps a user's requests in flight). */
export const OPEN_CONCURRENCY = 8;
/** An upstream's own error text in a tool result is cut to this. */
const MAX_ERROR_CHARS = 2_000;

/** A safe, unique model-facing name for an MCP tool name. */
export function offeredName(mcpName: string, taken: ReadonlySet<string>): string {
  let base = mcpName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  if (base === '') base = 'tool';
  if (NAME.test(base) && !taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `_${i}`;
    const candidate = `${base.slice(0, 64 - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The platform's error code in a JSON-RPC error's `data`, when it is one of ours. */
function platformCode(data: unknown): keyof typeof ERROR_CODES | undefined {
  const code = (data as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code)
    ? (code as keyof typeof ERROR_CODES)
    : undefined;
}

/**
 * Why a session or a call failed, in words the platform writes. The gateway relays what an
 * upstream answers, so a JSON-RPC error's text may be the upstream's own: it is used only where
 * `upstreamText` allows it (a tool's result, which is upstream text anyway), cut and on one
 * line; a refusal of the platform's own (its code in `data`) is named by its code and the error
 * table's description, so nothing an MCP server writes reaches the system prompt.
 */
export function refusalOf(err: unknown, opts: { upstreamText?: boolean } = {}): string {
  let data: unknown;
  let message: string | undefined;
  let status: number | undefined;
  if (err instanceof McpError) {
    data = err.data;
    message = err.message.replace(/^MCP error -?\d+: /, '');
  } else if (err instanceof StreamableHTTPError) {
    status = err.code;
    try {
      const parsed = JSON.parse(err.message.slice(err.message.indexOf('{'))) as {
        error?: { message?: unknown; data?: unknown };
      };
      data = parsed.error?.data;
      if (typeof parsed.error?.message === 'string') message = parsed.error.message;
    } catch {
      // not a JSON-RPC answer
    }
  } else if ((err as { name?: string } | undefined)?.name === 'TimeoutError') {
    return 'the MCP gateway did not answer in time';
  } else {
    return 'the MCP gateway could not be reached';
  }
  const code = platformCode(data);
  if (code !== undefined) return `${code}: ${ERROR_CODES[code].description}`;
  if (opts.upstreamText === true && message !== undefined) {
    const line = message.replace(/\s+/g, ' ').trim();
    return line.length > MAX_ERROR_CHARS ? `${line.slice(0, MAX_ERROR_CHARS)}…` : line;
  }
  return status === undefined
    ? 'the MCP server answered with an error'
    : `the MCP server could not be used (HTTP ${status})`;
}

/** Runs `work` over `items`, at most `limit` at a time, keeping their order. */
async function inBatches<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += limit) {
    out.push(...(await Promise.all(items.slice(i, i + limit).map(work))));
  }
  return out;
}

/** The text of an MCP tool result, as the model reads it. */
export function resultText(result: {
  content?: { type: string; text?: string; resource?: { text?: string; uri?: string } }[];
  structuredContent?: unknown;
}): string {
  const parts = (result.content ?? []).map((c) => {
    if (c.type === 'text') return c.text ?? '';
    if (c.type === 'resource') return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
    return `[${c.type}]`;
  });
  let text = parts.join('\n');
  if (text === '' && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent);
  }
  return text.length > MAX_TOOL_RESULT_CHARS
    ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[cut at ${MAX_TOOL_RESULT_CHARS} characters]`
    : text;
}

interface Session {
  serverId: string;
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** Opens agents' toolboxes through the gateway. */
export class AgentTools {
  constructor(private readonly opts: AgentToolsOptions) {}

  /**
   * Opens one MCP session per server through the gateway as the caller and lists the tools
   * the gateway offers them (the allowlist applied). A server the gateway refuses (no access,
   * no linked credential, unreachable) contributes no tools and is reported in `unavailable`
   * with the gateway's reason. `avoid` are names the model already has (the caller's tools).
   */
  async open(
    serverIds: readonly string[],
    caller: CallerCredential,
    signal: AbortSignal,
    avoid: ReadonlySet<string> = new Set(),
  ): Promise<Toolbox> {
    const unavailable: UnavailableServer[] = [];
    const gateway = this.opts.gatewayUrl;
    if (gateway === null) {
      return toolbox(
        [],
        serverIds.map((serverId) => ({
          serverId,
          reason: 'this deployment has no MCP gateway configured for agents',
        })),
        new Map(),
        this.opts.callTimeoutMs,
      );
    }
    const opened = await inBatches(serverIds, OPEN_CONCURRENCY, async (serverId) => {
      try {
        return await this.connect(gateway, serverId, caller, signal);
      } catch (err) {
        const reason = refusalOf(err);
        this.opts.logger.info(
          { server: serverId, reason },
          'an agent’s MCP server is unavailable to the caller',
        );
        unavailable.push({ serverId, reason });
        return undefined;
      }
    });
    const taken = new Set(avoid);
    const tools: AgentTool[] = [];
    const routes = new Map<string, { session: Session; mcpName: string }>();
    for (const entry of opened) {
      if (!entry) continue;
      for (const t of entry.tools) {
        if (tools.length >= MAX_AGENT_TOOLS) break;
        const name = offeredName(t.name, taken);
        taken.add(name);
        tools.push({
          name,
          ...(t.description === null ? {} : { description: t.description }),
          inputSchema: t.inputSchema,
        });
        routes.set(name, { session: entry.session, mcpName: t.name });
      }
    }
    const sessions = opened.flatMap((e) => (e ? [e.session] : []));
    return toolbox(tools, unavailable, routes, this.opts.callTimeoutMs, sessions);
  }

  private async connect(
    gateway: string,
    serverId: string,
    caller: CallerCredential,
    signal: AbortSignal,
  ) {
    const headers: Record<string, string> =
      caller.kind === 'api_key'
        ? { 'X-Api-Key': caller.value }
        : { Authorization: `Bearer ${caller.value}` };
    const transport = new StreamableHTTPClientTransport(
      new URL(`${gateway}/servers/${encodeURIComponent(serverId)}/mcp`),
      {
        fetch: (url, init) => {
          const method = init?.method ?? 'GET';
          // No server-to-client stream: an agent needs none, and each would hold one of the
          // user's requests in flight at the gateway for the whole run (405: "not offered").
          if (method === 'GET') return Promise.resolve(new Response(null, { status: 405 }));
          // Ending the session must still go out after the request was aborted.
          const bound = method === 'DELETE' ? AbortSignal.timeout(2_000) : signal;
          return this.opts.fetch(url, {
            ...init,
            signal: init?.signal ? AbortSignal.any([init.signal, bound]) : bound,
          });
        },
        requestInit: { headers, redirect: 'manual' },
      },
    );
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const session: Session = { serverId, client, transport };
    const request = {
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]),
      timeout: this.opts.timeoutMs,
    };
    try {
      await client.connect(transport, request);
      return { session, tools: await listAllTools(client, request) };
    } catch (err) {
      await end(session);
      throw err;
    }
  }
}

async function end(s: Session): Promise<void> {
  await s.transport.terminateSession().catch(() => undefined);
  await s.client.close().catch(() => undefined);
}

function toolbox(
  tools: AgentTool[],
  unavailable: UnavailableServer[],
  routes: Map<string, { session: Session; mcpName: string }>,
  timeoutMs: number,
  sessions: Session[] = [],
): Toolbox {
  return {
    tools,
    unavailable,
    has: (name) => routes.has(name),
    async call(name, args, signal) {
      const route = routes.get(name);
      if (!route) return { text: `Unknown tool: ${name}`, isError: true };
      try {
        const result = await route.session.client.request(
          { method: 'tools/call', params: { name: route.mcpName, arguments: args } },
          CallToolResultSchema,
          { signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]), timeout: timeoutMs },
        );
        return { text: resultText(result), isError: result.isError === true };
      } catch (err) {
        if (signal.aborted) throw err;
        return { text: refusalOf(err, { upstreamText: true }), isError: true };
      }
    },
    async close() {
      await Promise.all(sessions.map(end));
    },
  };
}
