import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What the operator learned by speaking MCP to a workload. */
export type HandshakeResult =
  | { ok: true; protocolVersion: string; serverName: string; serverVersion: string }
  /** The endpoint answers as an MCP protected resource: 401 with a Bearer challenge. */
  | { ok: true; authenticationRequired: true }
  | { ok: false; message: string };

export type Handshake = (url: string, signal?: AbortSignal) => Promise<HandshakeResult>;

/** The revision that replaced initialize with `server/discover` (stateless). */
export const DISCOVER_REVISION = '2026-07-28';

const CLIENT_INFO = { name: 'aiplane-operator', version: '0.1.0' };

/**
 * Why a handshake failed, in the operator's own words: never the peer's text, which is
 * untrusted, may change on every attempt (and so rewrite the status each time) and is shown to
 * every member of the organization.
 */
function reason(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.cause?.code ?? e?.code;
  if (typeof code === 'number' && code >= 300 && code < 400) return redirected(code);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the address does not resolve';
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no answer in time';
  if (typeof code === 'number' && code >= 100) return `HTTP ${code}`;
  if (typeof code === 'number' && code < -1) return `JSON-RPC error ${code}`;
  return 'the answer is not MCP';
}

const redirected = (status: number) =>
  `it answered with a redirect (HTTP ${status}), which the operator does not follow`;

/**
 * Every request of a handshake: a redirect is answered as it is, never followed (it could lead
 * anywhere, the cloud metadata address included), and so fails the handshake.
 */
const noRedirects: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'manual' });

/** A 401 carrying `WWW-Authenticate: Bearer …`: an MCP server that wants a user's token. */
async function asksForBearer(url: string, signal: AbortSignal): Promise<boolean> {
  const res = await noRedirects(url, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
  });
  await res.body?.cancel();
  return res.status === 401 && /^bearer\b/i.test(res.headers.get('www-authenticate') ?? '');
}

/**
 * The 2026-07-28 handshake: `server/discover` over a plain POST, with the headers that
 * revision requires. Answers the server's identity, or why it failed.
 */
async function discover(url: string, signal: AbortSignal): Promise<HandshakeResult> {
  const res = await noRedirects(url, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': DISCOVER_REVISION,
      'mcp-method': 'server/discover',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }),
  });
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    return { ok: false, message: redirected(res.status) };
  }
  if (!res.ok) return { ok: false, message: `server/discover answered HTTP ${res.status}` };
  const body = (await res.json().catch(() => undefined)) as
    | { result?: { serverInfo?: { name?: string; version?: string }; protocolVersions?: string[] } }
    | undefined;
  const info = body?.result?.serverInfo;
  if (!info?.name) return { ok: false, message: 'server/discover gave no serverInfo' };
  return {
    ok: true,
    protocolVersion: DISCOVER_REVISION,
    serverName: info.name,
    serverVersion: info.version ?? '',
  };
}

/**
 * Completes an MCP handshake with the official SDK client: `initialize` (revisions
 * 2025-03-26 … 2025-11-25), ending the session afterwards; when the server refuses initialize
 * the way a 2026-07-28-only server does (HTTP 400/404/405 or JSON-RPC "method not found"),
 * `server/discover` is tried. Redirects are not followed (a handshake failure). Never throws.
 */
export function sdkHandshake(opts: { timeoutMs: number }): Handshake {
  return async (url, outer) => {
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const signal = outer ? AbortSignal.any([deadline, outer]) : deadline;
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch: (input, init) =>
        noRedirects(input, {
          ...init,
          signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
        }),
    });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    try {
      await client.connect(transport, { signal, timeout: opts.timeoutMs });
      const info = client.getServerVersion();
      return {
        ok: true,
        protocolVersion: transport.protocolVersion ?? 'unknown',
        serverName: info?.name ?? 'unknown',
        serverVersion: info?.version ?? '',
      };
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 401 && (await asksForBearer(url, signal).catch(() => false))) {
        return { ok: true, authenticationRequired: true };
      }
      if (code === 400 || code === 404 || code === 405 || code === -32601) {
        const viaDiscover = await discover(url, signal).catch((e: unknown) => ({
          ok: false as const,
          message: reason(e),
        }));
        if (viaDiscover.ok) return viaDiscover;
      }
      return { ok: false, message: `MCP handshake with ${url} failed: ${reason(err)}` };
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    }
  };
}
