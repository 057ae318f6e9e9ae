import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Response } from 'express';
import type { Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import { isAllowed } from '@aiplane/lib/mcp';
import type { GatewayUpstreamLimits } from './config.js';
import { platformError, type JsonRpcId } from './json-rpc.js';
import type { GatewayMetrics } from './metrics.js';
import type { SessionBinder } from './session-id.js';
import { filterJsonBody } from './tool-filter.js';
import {
  idleGuard,
  readCapped,
  sseRewriter,
  type StreamFailure,
  type StreamOutcome,
} from './upstream-body.js';

/**
 * Response headers a client sees (Mcp-Session-Id is rewritten, see SessionBinder). Not the
 * upstream's Cache-Control or Set-Cookie: every gateway answer is `no-store` (it is one user's,
 * filtered for them), and the upstream's cookies are no business of the client's.
 */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'mcp-protocol-version'];

export interface RelayContext {
  serverId: string;
  userId: string;
  allowlist: string[];
  /** Aborts the upstream request (the client left, or the gateway gives up). */
  abort: AbortController;
  /** The request's first JSON-RPC id: what an error ending an event stream answers. */
  requestId: JsonRpcId;
  sessions: SessionBinder;
  metrics: GatewayMetrics;
  logger: Logger;
  upstreamLimits: GatewayUpstreamLimits;
}

const FAILURES: Record<
  StreamFailure,
  { code: 'mcp_server_timeout' | 'mcp_server_response_too_large'; message: string }
> = {
  idle: { code: 'mcp_server_timeout', message: 'the MCP server stopped sending' },
  too_large: {
    code: 'mcp_server_response_too_large',
    message: 'the MCP server’s answer is too large for the gateway',
  },
};

/**
 * The upstream's answer, relayed to the client: streamed (an event stream re-written event
 * by event, docs/adr/0010), or, for a JSON body the allowlist filters, read whole up to the
 * buffer cap. A body silent for the idle timeout, or over the cap, is cut: before anything
 * was sent, as a JSON-RPC refusal; in an event stream, with a last event answering the
 * request's id with that refusal.
 */
export async function relayAnswer(
  c: RelayContext,
  answer: globalThis.Response,
  res: Response,
): Promise<void> {
  if (answer.status === 401 || answer.status === 403) {
    await answer.body?.cancel();
    throw new ApiError(
      'mcp_credential_rejected',
      'the MCP server refused your linked credential; link a new one',
    );
  }
  if (answer.status >= 300 && answer.status < 400) {
    await answer.body?.cancel();
    throw new ApiError('mcp_server_unreachable', 'the MCP server answered with a redirect');
  }

  const limits = c.upstreamLimits;
  const outcome: StreamOutcome = {};
  const giveUp = () => {
    // Before any header the error handler counts the refusal; in a stream, count it here.
    const failure = outcome.failure;
    if (failure !== undefined && res.headersSent) {
      c.metrics.refusals.inc({ code: FAILURES[failure].code });
    }
    c.abort.abort();
  };
  const allowed =
    c.allowlist.length > 0 ? (name: string) => isAllowed(c.allowlist, name) : undefined;
  const type = (answer.headers.get('content-type') ?? '').toLowerCase();
  const sse = type.startsWith('text/event-stream');
  const upstreamBody = answer.body as unknown as WebReadableStream<Uint8Array> | null;
  const guard = (onIdle: 'end' | 'error') =>
    idleGuard({
      idleTimeoutMs: limits.idleTimeoutMs,
      signal: c.abort.signal,
      outcome,
      onIdle,
      giveUp,
    });

  // With an allowlist, every answer is filtered (POST and GET, whatever request id it
  // answers: an upstream may deliver a tools/list result on another stream, or replay it on a
  // resumed GET). A JSON body is filtered whole, so it is read (capped) before any header.
  let filteredJson: string | undefined;
  if (allowed !== undefined && !sse && upstreamBody) {
    let whole: Buffer | undefined;
    try {
      whole = await readCapped(upstreamBody.pipeThrough(guard('error')), limits.maxBufferedBytes);
    } catch (err) {
      if (outcome.failure === 'idle') throw refusal('idle');
      if (c.abort.signal.aborted) return; // the client left
      c.logger.info({ server: c.serverId, err: (err as Error).name }, 'upstream body failed');
      throw new ApiError('mcp_server_unreachable', 'the MCP server did not finish its answer');
    }
    if (whole === undefined) {
      outcome.failure = 'too_large';
      giveUp();
      throw refusal('too_large');
    }
    const text = whole.toString('utf8');
    filteredJson = filterJsonBody(text, allowed);
    // What a client would not read as JSON (an empty 202, a plain-text error page) passes as
    // it is; a JSON answer the gateway cannot read is refused, never passed on unfiltered.
    if (filteredJson === undefined && (text.trim() === '' || !type.includes('json'))) {
      filteredJson = text;
    }
    if (filteredJson === undefined) {
      c.logger.info({ server: c.serverId }, 'upstream answered JSON the gateway cannot read');
      throw new ApiError(
        'mcp_server_unreachable',
        'the MCP server answered JSON that is not valid',
      );
    }
  }

  res.status(answer.status);
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const v = answer.headers.get(name);
    if (v !== null) res.setHeader(name, v);
  }
  const session = answer.headers.get('mcp-session-id');
  if (session !== null) {
    res.setHeader('mcp-session-id', c.sessions.bind(session, c.userId, c.serverId));
  }
  c.metrics.requests.inc({ method: res.req.method, outcome: 'proxied' });
  if (filteredJson !== undefined) {
    res.send(filteredJson);
    return;
  }
  if (!upstreamBody) {
    res.end();
    return;
  }
  let body: WebReadableStream<Uint8Array>;
  if (sse) {
    body = upstreamBody.pipeThrough(guard('end')).pipeThrough(
      sseRewriter({
        ...(allowed ? { allowed } : {}),
        maxBufferedChars: limits.maxBufferedBytes,
        outcome,
        giveUp,
        failureEvent: (failure) => {
          if (c.requestId === null) return undefined;
          const { code, message } = FAILURES[failure];
          return `event: message\ndata: ${platformError(c.requestId, code, message)}\n\n`;
        },
      }),
    );
    res.flushHeaders();
  } else {
    body = upstreamBody.pipeThrough(guard('error'));
  }
  pipeline(Readable.fromWeb(body), res).catch(() => c.abort.abort());
}

function refusal(failure: StreamFailure): ApiError {
  const { code, message } = FAILURES[failure];
  return new ApiError(code, message);
}
