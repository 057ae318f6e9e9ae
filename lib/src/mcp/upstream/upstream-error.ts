import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { DialRefusedError, RedirectRefusedError } from './pinned-fetch.js';

/**
 * Why an upstream MCP server could not be used; the API maps these to 403
 * mcp_credential_rejected and 503 mcp_server_unreachable.
 */
export type UpstreamErrorReason = 'credential_rejected' | 'unreachable';

/**
 * A failed call to an upstream MCP server. `message` is short, written by us and safe to
 * show; it never carries upstream text or the credential. `cause` keeps what went wrong for
 * the log, rewritten so the credential cannot appear in it (see `redactError`).
 */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  constructor(
    readonly reason: UpstreamErrorReason,
    message: string,
    options?: { cause?: Error },
  ) {
    super(message, options);
  }
}

/** What the caller knows about a failure besides the error itself. */
export interface FailureContext {
  /** The credential that was sent; removed from every message kept on `cause`. */
  credential: string;
  /** The overall deadline passed before the call finished. */
  timedOut?: boolean;
  /** The caller's own signal aborted the call. */
  cancelled?: boolean;
  /** The deadline, for the message. */
  timeoutMs?: number;
}

const MAX_CAUSE_DEPTH = 5;
const MAX_MESSAGE_LENGTH = 500;

/** The error and its causes, outermost first. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length <= MAX_CAUSE_DEPTH) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

const CONNECTION_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  ENOTFOUND: 'host could not be resolved',
  EAI_AGAIN: 'host could not be resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'did not answer in time',
  UND_ERR_BODY_TIMEOUT: 'did not answer in time',
};

/** Node's TLS and certificate error codes. */
function isTlsCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.includes('CERT') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  );
}

/** Why the upstream was unreachable, in words we choose (never upstream text). */
function unreachableDetail(chain: unknown[], context: FailureContext): string {
  if (context.cancelled === true) return 'call was cancelled';
  if (context.timedOut === true) {
    return context.timeoutMs === undefined
      ? 'did not answer in time'
      : `did not answer within ${context.timeoutMs} ms`;
  }
  for (const error of chain) {
    if (error instanceof DialRefusedError) return `refused at dial: ${error.message}`;
    if (error instanceof RedirectRefusedError) {
      return `answered with a redirect (HTTP ${error.status}), which is not followed`;
    }
    if (error instanceof StreamableHTTPError) {
      return error.code === undefined || error.code < 0
        ? 'answered with a content type that is not MCP'
        : `answered HTTP ${error.code}`;
    }
    if (error instanceof McpError) {
      return error.code === Number(ErrorCode.RequestTimeout)
        ? 'did not answer in time'
        : `answered with JSON-RPC error ${error.code}`;
    }
    if (error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError')) {
      return 'answered with something that is not MCP';
    }
    if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
      return 'did not answer in time';
    }
    const code = errorCode(error);
    if (code !== undefined) {
      const known = CONNECTION_MESSAGES[code];
      if (known !== undefined) return known;
      if (isTlsCode(code)) return 'TLS handshake failed';
    }
  }
  return 'did not complete an MCP handshake';
}

/**
 * Turns anything thrown while talking to an upstream MCP server into an `UpstreamError`:
 * a 401 or 403 answer is `credential_rejected`; everything else (refused or reset
 * connections, DNS failures, addresses refused at dial, redirects, timeouts, TLS errors,
 * answers that are not MCP, JSON-RPC errors) is `unreachable`.
 */
export function classifyUpstreamFailure(error: unknown, context: FailureContext): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const chain = causeChain(error);
  const cause = redactError(error, context.credential);
  const rejected = chain.find(
    (entry): entry is StreamableHTTPError | UnauthorizedError =>
      (entry instanceof StreamableHTTPError && (entry.code === 401 || entry.code === 403)) ||
      entry instanceof UnauthorizedError,
  );
  if (rejected !== undefined && context.cancelled !== true && context.timedOut !== true) {
    const status = rejected instanceof StreamableHTTPError ? ` (HTTP ${rejected.code})` : '';
    return new UpstreamError('credential_rejected', `upstream refused the credential${status}`, {
      cause,
    });
  }
  return new UpstreamError('unreachable', `upstream ${unreachableDetail(chain, context)}`, {
    cause,
  });
}

/** Every way a credential could be written in a message: as is, JSON-escaped, URL-encoded. */
function secretForms(secret: string): string[] {
  if (secret.length === 0) return [];
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  // Longest first, so a form that contains another is replaced whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

function redactText(text: string, forms: string[]): string {
  let result = text;
  for (const form of forms) result = result.replaceAll(form, '[redacted]');
  return result.length > MAX_MESSAGE_LENGTH ? `${result.slice(0, MAX_MESSAGE_LENGTH)}…` : result;
}

/**
 * A copy of `error` and its causes that is safe to log: every message and stack has the
 * credential replaced and is cut to 500 characters, and only `name`, `code` and `status`
 * are kept. The SDK puts the upstream's response body into its error messages
 * ("Error POSTing to endpoint: <body>"), and an upstream may echo the Authorization header
 * it was sent, so the original errors must not reach a log.
 */
export function redactError(error: unknown, secret: string, depth = 0): Error {
  const forms = secretForms(secret);
  if (!(error instanceof Error)) {
    return new Error(redactText(typeof error === 'string' ? error : 'non-Error thrown', forms));
  }
  const nested =
    error.cause !== undefined && depth < MAX_CAUSE_DEPTH
      ? redactError(error.cause, secret, depth + 1)
      : undefined;
  const copy = new Error(
    redactText(error.message, forms),
    nested === undefined ? undefined : { cause: nested },
  );
  copy.name = error.name === 'Error' ? error.constructor.name : error.name;
  // The stack's first line repeats the message; keep our copy of it and the original frames.
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => line.startsWith('    at '))
    .slice(0, 10)
    .map((line) => redactText(line, forms));
  copy.stack = [`${copy.name}: ${copy.message}`, ...frames].join('\n');
  const extra: { code?: string | number; status?: number } = {};
  const record = error as { code?: unknown; status?: unknown };
  if (typeof record.code === 'string' || typeof record.code === 'number') extra.code = record.code;
  if (typeof record.status === 'number') extra.status = record.status;
  return Object.assign(copy, extra);
}
