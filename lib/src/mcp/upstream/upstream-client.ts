import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ListToolsResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from './pinned-fetch.js';
import { classifyUpstreamFailure } from './upstream-error.js';

/** One tool an upstream MCP server offers, as `available-tools` reports it. */
export interface UpstreamTool {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: Record<string, unknown>;
}

export interface UpstreamConnectOptions {
  /** The MCP endpoint, e.g. the stored remote `address`. */
  url: string;
  /** Sent as `Authorization: Bearer <credential>` on every request; never in an error. */
  credential: string;
  /** Use `createPinnedFetch` outside tests: it checks the address at dial time. */
  fetch: FetchLike;
  /** How long the handshake may take; default 10000. */
  timeoutMs?: number;
  /** Aborts every request of the connection, the handshake included. */
  signal?: AbortSignal;
}

/** An initialized MCP session with an upstream server. */
export interface UpstreamConnection {
  client: Client;
  /** The `Mcp-Session-Id` the server issued, if any. */
  readonly sessionId: string | undefined;
  /** Ends the session (DELETE when the server issued one) and closes; never throws. */
  close(): Promise<void>;
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

/** More pages than this and the listing stops with what it has. */
export const MAX_TOOL_PAGES = 100;

const CLIENT_INFO = { name: 'aiplane', version: '0.1.0' };

/** A fetch whose every request also ends when `signal` aborts. */
function fetchUntil(fetch: FetchLike, signal: AbortSignal | undefined): FetchLike {
  if (signal === undefined) return fetch;
  return (url, init) =>
    fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}

/**
 * What both SDK clients' Streamable HTTP transports are given: the fetch (ended with the
 * signal) and the credential as a bearer token. No authProvider: a 401 or 403 surfaces as an
 * error with that code. `redirect: 'manual'` stops the SDK from following a same-origin
 * redirect of a POST.
 */
function transportOptions(opts: UpstreamConnectOptions): {
  fetch: FetchLike;
  requestInit: RequestInit;
} {
  return {
    fetch: fetchUntil(opts.fetch, opts.signal),
    requestInit: {
      headers: { Authorization: `Bearer ${opts.credential}` },
      redirect: 'manual',
    },
  };
}

/** Connects and initializes; throws whatever the SDK threw, after closing. */
async function openConnection(
  opts: UpstreamConnectOptions,
  request: RequestOptions,
): Promise<UpstreamConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(opts.url), transportOptions(opts));
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const close = async (): Promise<void> => {
    // terminateSession sends DELETE only when the server issued a session id.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  };
  try {
    await client.connect(transport, request);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    client,
    get sessionId() {
      return transport.sessionId;
    },
    close,
  };
}

/**
 * Opens an MCP session with an upstream server: the Streamable HTTP handshake with the
 * credential as a bearer token. Failures throw `UpstreamError` (credential_rejected for a
 * 401 or 403, otherwise unreachable). The caller closes the connection.
 */
export async function connectUpstream(opts: UpstreamConnectOptions): Promise<UpstreamConnection> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal === undefined ? deadline : AbortSignal.any([deadline, opts.signal]);
  try {
    return await openConnection(opts, { signal, timeout: timeoutMs });
  } catch (error) {
    throw classifyUpstreamFailure(error, {
      credential: opts.credential,
      timedOut: deadline.aborted,
      cancelled: opts.signal?.aborted === true,
      timeoutMs,
    });
  }
}

function toUpstreamTool(tool: Tool): UpstreamTool {
  return {
    name: tool.name,
    title: tool.title ?? tool.annotations?.title ?? null,
    description: tool.description ?? null,
    inputSchema: { ...tool.inputSchema },
  };
}

/**
 * Every tool of a connected upstream, following `nextCursor` for at most `MAX_TOOL_PAGES`
 * pages. A server that does not declare the tools capability has none. Uses a plain
 * `tools/list` request rather than `Client.listTools`, which also compiles each tool's
 * output schema and would fail on a schema Ajv cannot compile.
 */
export async function listAllTools(
  client: Client,
  request: RequestOptions,
): Promise<UpstreamTool[]> {
  if (client.getServerCapabilities()?.tools === undefined) return [];
  const tools: UpstreamTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    // A signal of its own per page: the SDK leaves a listener on the signal of every request,
    // so one shared signal would collect one per page.
    const pageRequest = request.signal
      ? { ...request, signal: AbortSignal.any([request.signal]) }
      : request;
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
      pageRequest,
    );
    tools.push(...result.tools.map(toUpstreamTool));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/** The upstream refused the 2025 handshake because it speaks only 2026-07-28 or later (-32022). */
function refusedLegacyHandshake(error: unknown): boolean {
  return (
    error instanceof StreamableHTTPError &&
    error.code === 400 &&
    error.message.includes('"code":-32022')
  );
}

/**
 * `tools/list` over revision 2026-07-28 (`server/discover`, the per-request envelope,
 * `Mcp-Method`), with the official SDK's v2 client: the v1 client cannot speak it.
 */
async function listModernTools(
  opts: UpstreamConnectOptions,
  request: RequestOptions,
): Promise<UpstreamTool[]> {
  const transport = new ModernTransport(new URL(opts.url), transportOptions(opts));
  const client = new ModernClient(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    listMaxPages: MAX_TOOL_PAGES,
  });
  try {
    await client.connect(transport, request);
    if (client.getServerCapabilities()?.tools === undefined) return [];
    const { tools } = await client.listTools(undefined, request);
    return tools.map((t) => toUpstreamTool(t as Tool));
  } finally {
    await client.close().catch(() => undefined);
  }
}

export interface ListUpstreamToolsOptions extends UpstreamConnectOptions {
  /** How long the whole listing may take (handshake, every page, closing); default 10000. */
  timeoutMs?: number;
}

/**
 * Connects to an upstream MCP server with the user's credential, lists every tool and ends
 * the session. Failures throw `UpstreamError`: `credential_rejected` when the upstream
 * answers 401 or 403, `unreachable` for anything else (no connection, address refused at
 * dial, redirect, timeout, TLS, an answer that is not MCP).
 */
export async function listUpstreamTools(opts: ListUpstreamToolsOptions): Promise<UpstreamTool[]> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal === undefined ? deadline : AbortSignal.any([deadline, opts.signal]);
  const request: RequestOptions = { signal, timeout: timeoutMs };
  let connection: UpstreamConnection | undefined;
  try {
    connection = await openConnection({ ...opts, signal }, request);
    return await listAllTools(connection.client, request);
  } catch (error) {
    let failure = error;
    if (refusedLegacyHandshake(error)) {
      try {
        return await listModernTools({ ...opts, signal }, request);
      } catch (modernError) {
        failure = modernError;
      }
    }
    throw classifyUpstreamFailure(failure, {
      credential: opts.credential,
      timedOut: deadline.aborted,
      cancelled: opts.signal?.aborted === true,
      timeoutMs,
    });
  } finally {
    await connection?.close();
  }
}
