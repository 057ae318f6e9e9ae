/**
 * One place that decides whether a failed reconcile is worth retrying.
 *
 * @kubernetes/client-node 2.x throws `ApiException` (numeric `code`, `body` as the raw response
 * text) for non-2xx answers, its `Watch` fails with an `Error` carrying `statusCode`, and
 * transport failures surface as undici's `TypeError('fetch failed')` whose `cause` has a
 * Node error `code` such as `ECONNREFUSED`.
 */

export type ErrorKind =
  | 'conflict'
  | 'throttled'
  | 'server'
  | 'network'
  | 'timeout'
  | 'not_found'
  | 'gone'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid'
  | 'client'
  | 'permanent'
  | 'unknown';

export interface ErrorClassification {
  retryable: boolean;
  kind: ErrorKind;
  /** HTTP status from the apiserver (or another HTTP peer), when there was one. */
  status?: number;
  /** `reason` of a Kubernetes `Status` body (e.g. `AlreadyExists`, `Conflict`), when present. */
  reason?: string;
}

/** Thrown to say "the object changed under us; requeue quietly". Classified as a 409. */
export class ConflictError extends Error {
  readonly status = 409;
  constructor(message = 'the object has been modified', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConflictError';
  }
}

/** Thrown by a reconciler for a failure that retrying cannot fix (e.g. an invalid spec). */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/** Node socket error codes that mean "no usable connection" (retryable). */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/** Status codes for which repeating the same request cannot succeed. */
const NOT_RETRYABLE_STATUS: Record<number, ErrorKind> = {
  400: 'invalid',
  405: 'client',
  406: 'client',
  413: 'client',
  415: 'client',
  422: 'invalid',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function asHttpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599
    ? value
    : undefined;
}

/** Walks an error and its `cause` chain (bounded). */
function* chain(err: unknown): Generator<Record<string, unknown>> {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && isRecord(current); depth++) {
    yield current;
    current = current.cause;
  }
}

/**
 * The HTTP status carried by an error: `ApiException.code`, a watch error's `statusCode`,
 * a `Status` object's `code`, or {@link ConflictError}; looks through `cause` too.
 */
export function httpStatusOf(err: unknown): number | undefined {
  for (const e of chain(err)) {
    const status = asHttpStatus(e.code) ?? asHttpStatus(e.statusCode) ?? asHttpStatus(e.status);
    if (status !== undefined) return status;
  }
  return undefined;
}

/** The `reason` of a Kubernetes `Status` found in an error body (string or object). */
export function kubeStatusReason(err: unknown): string | undefined {
  for (const e of chain(err)) {
    let body: unknown = e.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body) as unknown;
      } catch {
        continue;
      }
    }
    if (isRecord(body) && typeof body.reason === 'string') return body.reason;
    if (e.kind === 'Status' && typeof e.reason === 'string') return e.reason;
  }
  return undefined;
}

function transportKind(err: unknown): 'network' | 'timeout' | undefined {
  for (const e of chain(err)) {
    if (e.name === 'TimeoutError' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
    if (e.name === 'AbortError') return 'timeout';
    const code = e.code;
    if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || code.startsWith('UND_ERR'))) {
      return 'network';
    }
    if (e instanceof TypeError && e.message === 'fetch failed') return 'network';
  }
  return undefined;
}

function kindForStatus(status: number): ErrorClassification['kind'] {
  if (status === 409) return 'conflict';
  if (status === 429) return 'throttled';
  if (status >= 500) return 'server';
  if (status === 404) return 'not_found';
  if (status === 410) return 'gone';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 408) return 'timeout';
  return NOT_RETRYABLE_STATUS[status] ?? 'client';
}

/**
 * Classifies an error. Retryable: transport failures, timeouts, 5xx, 429, 409 and other
 * transient answers (404/410 races, 401/403 while RBAC or credentials settle) and anything
 * unknown. Not retryable: {@link PermanentError} and requests the apiserver rejects as
 * malformed or invalid (400, 405, 406, 413, 415, 422).
 */
export function classifyError(err: unknown): ErrorClassification {
  const reason = kubeStatusReason(err);
  const withReason = (c: ErrorClassification): ErrorClassification =>
    reason === undefined ? c : { ...c, reason };
  for (const e of chain(err)) {
    if (e instanceof PermanentError) return withReason({ retryable: false, kind: 'permanent' });
  }
  const status = httpStatusOf(err);
  if (status !== undefined) {
    const kind = kindForStatus(status);
    return withReason({ retryable: NOT_RETRYABLE_STATUS[status] === undefined, kind, status });
  }
  const transport = transportKind(err);
  if (transport) return { retryable: true, kind: transport };
  return withReason({ retryable: true, kind: 'unknown' });
}

/** True for a 409 (including {@link ConflictError}). */
export function isConflict(err: unknown): boolean {
  return httpStatusOf(err) === 409;
}

/** True for a 404. */
export function isNotFound(err: unknown): boolean {
  return httpStatusOf(err) === 404;
}
