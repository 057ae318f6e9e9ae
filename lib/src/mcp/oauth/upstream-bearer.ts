import type { Logger } from '../../logger.js';
import { ApiError } from '../../errors/api-error.js';
import { RenewalBusyError, type CredentialStore } from '../../store/credential-store.js';
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
/**
 * How long a replica's claim to renew a credential lasts (`refreshing_until`): well past the
 * refresh timeout, so a second replica never sends the same (rotating) refresh token while the
 * first request may still be answered; a replica that died mid-renewal blocks renewal this long.
 */
const RENEWAL_LEASE_MS = 3 * REFRESH_TIMEOUT_MS;
/** How long a request waits for another replica's renewal of the same credential. */
const RENEWAL_WAIT_MS = REFRESH_TIMEOUT_MS + 2_000;

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
 * its refresh token and resource) when it expires within 30 s, the new token set sealed and
 * stored. Concurrent requests renew once: in this process they share one renewal, across
 * replicas a lease on the row decides who renews (`CredentialStore.renew`); no database
 * connection is held while the authorization server answers. Marks the credential used.
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
  let current;
  try {
    current = await credentials.renew(serverId, userId, {
      leaseMs: RENEWAL_LEASE_MS,
      waitMs: RENEWAL_WAIT_MS,
      due: (value, kind) => {
        if (kind === 'static') return false;
        const stored = parseTokenSet(value);
        if (!stored) throw unreadable();
        // Another request (or replica) renewed it meanwhile: use what is there.
        return needsRenewal(stored, now());
      },
      next: async (value) => {
        const stored = parseTokenSet(value);
        if (!stored) throw unreadable();
        // The registration of the token set as stored now (the user may have linked again).
        const client = await credentials.oauthClients.get(stored.client_ref);
        try {
          return serializeTokenSet(await renewTokenSet({ set: stored, client, fetch, now: now() }));
        } catch (error) {
          opts.logger?.warn(
            {
              server: serverId,
              code: error instanceof ApiError ? error.code : undefined,
              cause: redactSecrets(error instanceof Error ? error.cause : error, [
                stored.access_token,
                stored.refresh_token ?? undefined,
                client?.clientSecret ?? undefined,
              ]),
            },
            'an upstream OAuth credential could not be renewed',
          );
          // A failure that may pass, while the token still works: use it this time.
          if (error instanceof ApiError && error.code === 'mcp_oauth_upstream_error') {
            if (!expired(stored, now())) return undefined;
          }
          throw error;
        }
      },
    });
  } catch (error) {
    if (!(error instanceof RenewalBusyError)) throw error;
    // Another replica's renewal did not finish in time: the token we have, while it works.
    if (!expired(set, now())) return set.access_token;
    throw new ApiError(
      'mcp_oauth_upstream_error',
      "OAuth refresh with the MCP server's authorization server is taking too long; retry",
    );
  }
  if (current === undefined) throw notLinked();
  if (current.kind === 'static') return current.value;
  const renewed = parseTokenSet(current.value);
  if (!renewed) throw unreadable();
  return renewed.access_token;
}
