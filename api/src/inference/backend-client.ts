import type { LeanRequestInit, LeanResponse } from '@aiplane/lib/mcp';

/** Statuses worth another try: the backend is busy or a proxy before it failed. */
const RETRYABLE = new Set([429, 502, 503, 504]);
/** Failed calls are retried up to three times (spec: Limits). */
export const MAX_RETRIES = 3;
/** A Retry-After longer than this is not waited for: the last failure is answered instead. */
const MAX_RETRY_AFTER_MS = 60_000;

/** The backend could not give an answer: after the retries, or on an answer not worth one. */
export class BackendFailure extends Error {
  override readonly name = 'BackendFailure';
  constructor(
    /** The backend's status, or undefined when it could not be reached (or timed out). */
    readonly status: number | undefined,
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** A body sent as these bytes with this content type, not as JSON (a multipart form). */
export class EncodedBody {
  constructor(
    readonly contentType: string,
    readonly data: Uint8Array,
  ) {}
}

export interface BackendCallOptions {
  /** The pool's lean request (PinnedFetch.request): the hot path skips the fetch API. */
  request: (url: string, init: LeanRequestInit) => Promise<LeanResponse>;
  /** `<base_url>/chat/completions`. */
  url: string;
  apiKey: string | undefined;
  /** Sent as JSON; an EncodedBody is sent as its bytes (a multipart form). */
  body: unknown;
  /** Aborts the call: the client went away, or the request's deadline passed. */
  signal: AbortSignal;
  /** The first retry's delay; each next one doubles it. */
  retryBaseMs: number;
  /** Waits (tests replace it); rejects when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called before each retry, for logs and metrics. */
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
}

/**
 * POSTs to an OpenAI-compatible backend and answers its 200 response, body unread (a stream
 * or JSON). A connect error, 429, 502, 503 or 504 is retried up to three times, waiting
 * `retryBaseMs · 2^n` or the backend's `Retry-After` when longer (docs/adr/0024). Nothing
 * has reached the client while this runs, so a retry is always safe.
 */
export async function callBackend(opts: BackendCallOptions): Promise<LeanResponse> {
  const sleep = opts.sleep ?? abortableSleep;
  for (let attempt = 0; ; attempt += 1) {
    let res: LeanResponse | undefined;
    let reason: string;
    try {
      const encoded = opts.body instanceof EncodedBody ? opts.body : undefined;
      res = await opts.request(opts.url, {
        method: 'POST',
        headers: {
          'content-type': encoded ? encoded.contentType : 'application/json',
          accept: 'application/json, text/event-stream',
          ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
        },
        body: encoded ? encoded.data : JSON.stringify(opts.body),
        signal: opts.signal,
      });
    } catch (err) {
      if (opts.signal.aborted) throw aborted(opts.signal);
      res = undefined;
      reason = `backend unreachable: ${unreachableReason(err)}`;
      if (attempt >= MAX_RETRIES) throw new BackendFailure(undefined, reason);
      const delay = backoff(opts.retryBaseMs, attempt);
      opts.onRetry?.(attempt + 1, reason, delay);
      await sleepOrAbort(sleep, delay, opts.signal);
      continue;
    }
    if (res.status >= 200 && res.status < 300) return res;
    const detail = await errorText(res);
    reason = `backend answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`;
    if (!RETRYABLE.has(res.status) || attempt >= MAX_RETRIES) {
      throw new BackendFailure(res.status, reason);
    }
    const after = retryAfterMs(res.header('retry-after') ?? null);
    if (after !== undefined && after > MAX_RETRY_AFTER_MS)
      throw new BackendFailure(res.status, reason);
    const delay = Math.max(backoff(opts.retryBaseMs, attempt), after ?? 0);
    opts.onRetry?.(attempt + 1, reason, delay);
    await sleepOrAbort(sleep, delay, opts.signal);
  }
}

function backoff(baseMs: number, attempt: number): number {
  return baseMs * 2 ** attempt;
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds; undefined when absent or bad. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The start of an error body, for the log and the caller's message (no more than 300 chars). */
async function errorText(res: LeanResponse): Promise<string> {
  try {
    const text = (await res.body.text()).trim();
    try {
      const parsed = JSON.parse(text) as {
        error?: { message?: unknown } | string;
        message?: unknown;
      };
      const message =
        typeof parsed.error === 'string'
          ? parsed.error
          : typeof parsed.error?.message === 'string'
            ? parsed.error.message
            : typeof parsed.message === 'string'
              ? parsed.message
              : text;
      return message.slice(0, 300);
    } catch {
      return text.slice(0, 300);
    }
  } catch {
    return '';
  }
}

function aborted(signal: AbortSignal): BackendFailure {
  const timedOut = (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
  return new BackendFailure(
    undefined,
    timedOut ? 'the backend call timed out' : 'aborted',
    timedOut,
  );
}

async function sleepOrAbort(
  sleep: NonNullable<BackendCallOptions['sleep']>,
  ms: number,
  signal: AbortSignal,
): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch {
    throw aborted(signal);
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Why a backend could not be reached, in words a tenant may read: the address rule that
 * refused it (its message names the host and the rule, never addresses), or the network
 * error's code. Node's own messages carry the address dialed (`connect ECONNREFUSED
 * 10.96.4.2:8000`), which is the cluster's, not the caller's, to know.
 */
function unreachableReason(err: unknown): string {
  const e = err as { name?: string; code?: unknown; message?: string; cause?: unknown };
  if (e?.name === 'DialRefusedError') return e.message ?? 'refused by the address rules';
  const cause = e?.cause as { name?: string; code?: unknown; message?: string } | undefined;
  if (cause?.name === 'DialRefusedError') return cause.message ?? 'refused by the address rules';
  const code =
    typeof e?.code === 'string' ? e.code : typeof cause?.code === 'string' ? cause.code : undefined;
  return code ?? 'the connection failed';
}
