import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

/**
 * The sealed value of an OAuth credential (`mcp_credentials.kind = 'oauth'`), as JSON. Holds
 * everything a renewal needs except the client secret, which stays with the registration that
 * `client_ref` names (`mcp_oauth_clients`).
 */
const TokenSetSchema = Type.Object({
  v: Type.Literal(1),
  access_token: Type.String({ minLength: 1 }),
  refresh_token: Nullable(Type.String({ minLength: 1 })),
  /** ISO 8601; null when the authorization server gave no `expires_in`. */
  expires_at: Nullable(Type.String()),
  /** The authorization server (issuer identifier) that issued the tokens. */
  issuer: Type.String(),
  token_endpoint: Type.String(),
  /** `mcp_oauth_clients.id` of the client the tokens were issued to. */
  client_ref: Type.String(),
  client_id: Type.String(),
  /** RFC 8707 resource indicator, sent again on every refresh. */
  resource: Nullable(Type.String()),
  scope: Nullable(Type.String()),
});

export type OAuthTokenSet = Static<typeof TokenSetSchema>;

/** A token is renewed when it expires within this margin (or has expired). */
export const RENEWAL_MARGIN_MS = 30_000;

/**
 * The longest access token lifetime we record: one year. A larger `expires_in` (the SDK
 * accepts any number, `1e300` included, which no `Date` can hold) counts as one year; a
 * negative one as already expired. Past a year the token is renewed, which costs one refresh.
 */
export const MAX_TOKEN_LIFETIME_SECONDS = 365 * 24 * 3600;

/** When a token given `expires_in` at `now` expires: ISO 8601, or null when it gave none. */
function expiryOf(expiresIn: number | undefined, now: Date): string | null {
  if (expiresIn === undefined || Number.isNaN(expiresIn)) return null;
  const seconds = Math.min(Math.max(expiresIn, 0), MAX_TOKEN_LIFETIME_SECONDS);
  return new Date(now.getTime() + seconds * 1000).toISOString();
}

/** Where tokens came from: the client, authorization server and resource they are bound to. */
export interface TokenOrigin {
  issuer: string;
  tokenEndpoint: string;
  clientRef: string;
  clientId: string;
  resource: string | null;
}

/**
 * The token set to store for a token response received at `now`. A refresh response that
 * omits the refresh token or the scope keeps the previous one (RFC 6749 §6: the server may
 * keep the old refresh token valid; dropping it would lose the credential). `expires_in` is
 * clamped to [0, `MAX_TOKEN_LIFETIME_SECONDS`].
 */
export function tokenSetFrom(
  tokens: OAuthTokens,
  origin: TokenOrigin,
  now: Date,
  previous?: OAuthTokenSet,
): OAuthTokenSet {
  return {
    v: 1,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token || (previous?.refresh_token ?? null),
    expires_at: expiryOf(tokens.expires_in, now),
    issuer: origin.issuer,
    token_endpoint: origin.tokenEndpoint,
    client_ref: origin.clientRef,
    client_id: origin.clientId,
    resource: origin.resource,
    scope: tokens.scope ?? previous?.scope ?? null,
  };
}

export function serializeTokenSet(set: OAuthTokenSet): string {
  return JSON.stringify(set);
}

/** The stored token set, or undefined when the value is not one (never throws). */
export function parseTokenSet(value: string): OAuthTokenSet | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  return Value.Check(TokenSetSchema, parsed) ? parsed : undefined;
}

/** Whether the access token expires within `RENEWAL_MARGIN_MS` of `now` (or already has). */
export function needsRenewal(set: OAuthTokenSet, now: Date): boolean {
  if (set.expires_at === null) return false;
  const expiresAt = Date.parse(set.expires_at);
  return Number.isNaN(expiresAt) || expiresAt - now.getTime() <= RENEWAL_MARGIN_MS;
}
