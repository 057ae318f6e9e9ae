import { refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { ApiError } from '../../errors/api-error.js';
import type { OAuthClient } from '../../store/oauth-client-store.js';
import type { FetchLike } from '../upstream/index.js';
import { oauthErrorCode, oauthUpstreamError } from './oauth-failure.js';
import { clientInformation } from './registration.js';
import { tokenSetFrom, type OAuthTokenSet } from './token-set.js';

/** Refusals after which only linking again helps (RFC 6749 §5.2). */
const FINAL_REFUSALS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client']);

export function credentialExpired(reason: string): ApiError {
  return new ApiError(
    'mcp_credential_expired',
    `your OAuth credential for this server can no longer be renewed (${reason}); link it again`,
  );
}

/**
 * A renewed token set: the refresh grant at the token endpoint the tokens came from, with the
 * client they were issued to and the same `resource` (RFC 8707), through the SDK. Throws 403
 * mcp_credential_expired when renewal is impossible (no refresh token, the client is gone) or
 * refused for good (invalid_grant, …), and 503 mcp_oauth_upstream_error for anything else
 * (the caller may retry). `cause` of the latter is the original failure, for the log.
 */
export async function renewTokenSet(input: {
  set: OAuthTokenSet;
  client: OAuthClient | undefined;
  fetch: FetchLike;
  now: Date;
}): Promise<OAuthTokenSet> {
  const { set, client } = input;
  if (set.refresh_token === null) throw credentialExpired('no refresh token was issued');
  if (client === undefined || client.clientId !== set.client_id) {
    throw credentialExpired('the client it was issued to is no longer registered');
  }
  let tokens;
  try {
    tokens = await refreshAuthorization(set.issuer, {
      metadata: { ...client.metadata, token_endpoint: set.token_endpoint },
      clientInformation: clientInformation(client),
      refreshToken: set.refresh_token,
      ...(set.resource === null ? {} : { resource: set.resource }),
      fetchFn: input.fetch,
    });
  } catch (error) {
    const code = oauthErrorCode(error);
    if (code !== undefined && FINAL_REFUSALS.has(code)) {
      throw Object.assign(credentialExpired(`the authorization server answered ${code}`), {
        cause: error,
      });
    }
    throw Object.assign(oauthUpstreamError('refresh', error), { cause: error });
  }
  return tokenSetFrom(
    tokens,
    {
      issuer: set.issuer,
      tokenEndpoint: set.token_endpoint,
      clientRef: set.client_ref,
      clientId: set.client_id,
      resource: set.resource,
    },
    input.now,
    set,
  );
}
