import type { Logger } from '@aiplane/lib';
import { ApiError } from '../../errors/api-error.js';
import type { CredentialStore } from '../../store/credential-store.js';
import type { FetchLike } from '../upstream/index.js';
import { oauthFetch } from './oauth-fetch.js';
import { redactSecrets } from './oauth-failure.js';
import { credentialExpired, renewTokenSet } from './token-renewal.js';
import { needsRenewal, parseTokenSet, serializeTokenSet, type OAuthTokenSet } from './token-set.js';

export interface UpstreamBearerOptions {
  credentials: CredentialStore;
  serverId: string;
  userId: string;
  /** Dials the authorization server for a refresh: use the pinned fetch (SSRF-checked). */
  fetch: FetchLike;
  now?: () => Date;
  /** Told why a renewal failed (secrets removed). */
  logger?: Logger;
}

/** How long one refresh request may take. */
const REFRESH_TIMEOUT_MS = 10_000;

function notLinked(): ApiError {
  return new ApiError(
    'mcp_credential_not_linked',
    'link your credential for this server first (PUT /v1/mcp/servers/{id}/credential or OAuth)',
  );
}

function unreadable(): ApiError {
  return credentialExpired('the stored token set cannot be read');
}

function expired(set: OAuthTokenSet, now: Date): boolean {
  return set.expires_at !== null && Date.parse(set.expires_at) <= now.getTime();
}

/**
 * The bearer token to send upstream for this user and server, looked up by exactly that
 * pair: a static credential as it is; an OAuth credential's access token, renewed first (with
 * its refresh token and resource, under a row lock so concurrent requests renew once) when it
 * expires within 30 s, the new token set sealed and stored. Marks the credential used.
 *
 * Throws 403 mcp_credential_not_linked when none is linked, 403 mcp_credential_expired when
 * an OAuth credential cannot be renewed (no refresh token, invalid_grant, …), and 503
 * mcp_oauth_upstream_error when the authorization server failed and the token has expired
 * (while it is still valid, the current one is answered).
 */
export async function upstreamBearer(opts: UpstreamBearerOptions): Promise<string> {
  const now = opts.now ?? (() => new Date());
  const { credentials, serverId, userId } = opts;
  const credential = await credentials.use(serverId, userId);
  if (!credential) throw notLinked();
  if (credential.kind === 'static') return credential.value;
  const set = parseTokenSet(credential.value);
  if (!set) throw unreadable();
  if (!needsRenewal(set, now())) return set.access_token;

  const fetch = oauthFetch(opts.fetch, REFRESH_TIMEOUT_MS);
  // Read before the row lock: the locked transaction holds a pool connection and must not
  // wait for a second one.
  const client = await credentials.oauthClients.get(set.client_ref);
  const current = await credentials.update(serverId, userId, async (value, kind) => {
    if (kind === 'static') return undefined;
    const locked = parseTokenSet(value);
    if (!locked) throw unreadable();
    // Another request renewed it while this one waited for the lock, or the user linked
    // again meanwhile (a fresh token from another registration): use what is there.
    if (!needsRenewal(locked, now()) || locked.client_ref !== set.client_ref) return undefined;
    try {
      return serializeTokenSet(await renewTokenSet({ set: locked, client, fetch, now: now() }));
    } catch (error) {
      opts.logger?.warn(
        {
          server: serverId,
          code: error instanceof ApiError ? error.code : undefined,
          cause: redactSecrets(error instanceof Error ? error.cause : error, [
            locked.access_token,
            locked.refresh_token ?? undefined,
            client?.clientSecret ?? undefined,
          ]),
        },
        'an upstream OAuth credential could not be renewed',
      );
      // A failure that may pass, while the token still works: use it this time.
      if (error instanceof ApiError && error.code === 'mcp_oauth_upstream_error') {
        if (!expired(locked, now())) return undefined;
      }
      throw error;
    }
  });
  if (current === undefined) throw notLinked();
  if (current.kind === 'static') return current.value;
  const renewed = parseTokenSet(current.value);
  if (!renewed) throw unreadable();
  return renewed.access_token;
}
