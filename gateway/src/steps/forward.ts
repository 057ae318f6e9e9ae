import type { Request } from 'express';
import type { Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import type { UpstreamTarget } from '@aiplane/lib/mcp';
import type { GatewayUpstreamLimits } from '../config.js';

/** Request headers an upstream sees: the MCP transport's own, nothing of the caller's identity. */
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
];

export interface ForwardRequest {
  req: Request;
  serverId: string;
  bearer: string;
  /** The upstream's own session id (the client presented the gateway's). */
  session: string | undefined;
  body: string | undefined;
  /** Aborted when the client leaves (and by the headers timeout). */
  abort: AbortController;
}

/**
 * Step 6: the request, with the caller's credential, to the upstream; its answer once the
 * headers arrive. Undefined when the client left meanwhile. A silent upstream is 504
 * mcp_server_timeout (the headers timeout covers connecting too; the connect timeout is the
 * dialer's own), an unreachable one 503 mcp_server_unreachable.
 */
export async function forward(
  d: { logger: Logger; upstreamLimits: GatewayUpstreamLimits },
  upstream: UpstreamTarget,
  f: ForwardRequest,
): Promise<globalThis.Response | undefined> {
  const headers: Record<string, string> = { authorization: `Bearer ${f.bearer}` };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const v = f.req.get(name);
    if (v !== undefined) headers[name] = v;
  }
  if (f.session !== undefined) headers['mcp-session-id'] = f.session;
  if (f.abort.signal.aborted) return undefined; // the client left
  let timedOut = false;
  const headersTimer = setTimeout(() => {
    timedOut = true;
    f.abort.abort();
  }, d.upstreamLimits.headersTimeoutMs);
  try {
    return await upstream.fetch(upstream.url, {
      method: f.req.method,
      headers,
      ...(f.body !== undefined ? { body: f.body } : {}),
      redirect: 'manual',
      signal: f.abort.signal,
    });
  } catch (err) {
    if (timedOut || connectTimedOut(err)) {
      d.logger.info({ server: f.serverId }, 'upstream timed out before answering');
      throw new ApiError('mcp_server_timeout', 'the MCP server did not answer in time');
    }
    if (f.abort.signal.aborted) return undefined; // the client left
    d.logger.info({ server: f.serverId, err: (err as Error).name }, 'upstream did not answer');
    throw new ApiError('mcp_server_unreachable', 'the MCP server did not answer');
  } finally {
    clearTimeout(headersTimer);
  }
}

/** undici's connect timeout (the dialer's `connectTimeoutMs`), as fetch reports it. */
function connectTimedOut(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'UND_ERR_CONNECT_TIMEOUT';
}
