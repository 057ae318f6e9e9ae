import type { FetchLike } from '../upstream/index.js';

/**
 * A fetch for the SDK's OAuth helpers: every request also ends after `timeoutMs`, and answers
 * come back as this runtime's global `Response`. The pinned fetch answers undici's own
 * `Response` class, which the SDK's `parseErrorResponse` (an `instanceof Response` check) does
 * not recognise, so OAuth error codes such as `invalid_grant` would be lost.
 */
export function oauthFetch(fetch: FetchLike, timeoutMs: number): FetchLike {
  return async (url, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    // Typed as the global Response, but the pinned fetch answers undici's class.
    const res: unknown = await fetch(url, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
    });
    if (res instanceof Response) return res;
    const foreign = res as Response;
    return new Response(foreign.body, {
      status: foreign.status,
      statusText: foreign.statusText,
      headers: foreign.headers,
    });
  };
}
