import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ApiError } from '../../errors/api-error.js';
import { DialRefusedError, RedirectRefusedError, redactError } from '../upstream/index.js';

/**
 * What an upstream's OAuth setup offers and we refuse (no PKCE S256, no registration endpoint,
 * plain-http endpoints, …). The message is ours and is shown to the caller.
 */
export class OAuthSetupError extends Error {
  override readonly name = 'OAuthSetupError';
}

/** The OAuth step that failed, for messages and logs. */
export type OAuthStep =
  'discovery' | 'registration' | 'authorization' | 'code exchange' | 'refresh';

function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 6;) {
    out.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
}

/**
 * Why an OAuth request failed, in words we choose: never upstream text, which may echo what
 * was sent. An OAuth error response is named by its `error` code (the SDK maps it to a class
 * from a fixed table).
 */
export function oauthFailureDetail(error: unknown): string {
  for (const e of chain(error)) {
    if (e instanceof OAuthSetupError) return e.message;
    if (e instanceof OAuthError) return `the authorization server answered ${e.errorCode}`;
    if (e instanceof DialRefusedError) return `refused at dial: ${e.message}`;
    if (e instanceof RedirectRefusedError) return 'answered with a redirect, which is not followed';
    if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) {
      return 'no answer in time';
    }
    if (e instanceof Error && e.name === 'ZodError') return 'an answer that is not valid OAuth';
    if (e instanceof SyntaxError) return 'an answer that is not JSON';
  }
  return error instanceof TypeError ? 'the server could not be reached' : 'an unexpected answer';
}

/** 503 mcp_oauth_upstream_error for a failed step; the caller may retry. */
export function oauthUpstreamError(step: OAuthStep, error: unknown): ApiError {
  return new ApiError(
    'mcp_oauth_upstream_error',
    `OAuth ${step} with the MCP server's authorization server failed (${oauthFailureDetail(error)}); retry`,
  );
}

/** The OAuth error code of a refused token request (`invalid_grant`, …), if it was one. */
export function oauthErrorCode(error: unknown): string | undefined {
  return error instanceof OAuthError ? error.errorCode : undefined;
}

/** A copy of `error` for the log with every secret (codes, verifiers, tokens, secrets) removed. */
export function redactSecrets(error: unknown, secrets: readonly (string | undefined)[]): Error {
  let copy = redactError(error, '');
  for (const secret of secrets) {
    if (secret) copy = redactError(copy, secret);
  }
  return copy;
}
