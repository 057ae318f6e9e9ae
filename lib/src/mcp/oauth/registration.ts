import { registerClient } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthClient, OAuthClientStore } from '../../store/oauth-client-store.js';
import type { FetchLike } from '../upstream/index.js';
import type { UpstreamAuthorization } from './discovery.js';
import { OAuthSetupError } from './oauth-failure.js';
import { oauthUrlProblem } from './oauth-url.js';

const SECRET_MARGIN_MS = 15 * 60_000;

/**
 * How our client authenticates at the token endpoint: with a secret when the server allows
 * (basic first, RFC 6749 §2.3.1), else as a public client. RFC 8414: an absent list means
 * `client_secret_basic`.
 */
export function chooseAuthMethod(supported: readonly string[] | undefined): string {
  if (supported === undefined || supported.length === 0) return 'client_secret_basic';
  for (const method of ['client_secret_basic', 'client_secret_post', 'none']) {
    if (supported.includes(method)) return method;
  }
  throw new OAuthSetupError(
    'the authorization server supports none of client_secret_basic, client_secret_post, none',
  );
}

/** The SDK's view of a stored client, for the token requests. */
export function clientInformation(client: OAuthClient): OAuthClientInformationFull {
  return {
    client_id: client.clientId,
    ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    redirect_uris: [client.redirectUri],
  };
}

/**
 * The client registered for this server at this authorization server with this return
 * address; registers one (RFC 7591 dynamic registration, through the SDK) when there is none
 * yet, so users share it.
 */
export async function ensureClient(input: {
  clients: OAuthClientStore;
  serverId: string;
  organizationId: string;
  authorization: UpstreamAuthorization;
  redirectUri: string;
  fetch: FetchLike;
  allowLoopback: boolean;
  now: Date;
}): Promise<OAuthClient> {
  const { authorization: auth } = input;
  const found = await input.clients.current({
    serverId: input.serverId,
    issuer: auth.issuer,
    redirectUri: input.redirectUri,
    // A secret about to expire would not outlive the linking: register a new client then.
    validAt: new Date(input.now.getTime() + SECRET_MARGIN_MS),
  });
  if (found) return found;
  if (auth.metadata.registration_endpoint === undefined) {
    throw new OAuthSetupError('the authorization server offers no dynamic client registration');
  }
  const problem = oauthUrlProblem('registration_endpoint', auth.metadata.registration_endpoint, {
    allowLoopback: input.allowLoopback,
  });
  if (problem !== undefined) throw new OAuthSetupError(problem);
  const method = chooseAuthMethod(auth.metadata.token_endpoint_auth_methods_supported);
  const registered = await registerClient(auth.issuer, {
    metadata: auth.metadata,
    clientMetadata: {
      client_name: 'aiplane',
      redirect_uris: [input.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
    },
    scope: auth.scope,
    fetchFn: input.fetch,
  });
  const expiresAt = registered.client_secret_expires_at;
  return input.clients.add({
    serverId: input.serverId,
    organizationId: input.organizationId,
    issuer: auth.issuer,
    metadata: auth.metadata,
    redirectUri: input.redirectUri,
    clientId: registered.client_id,
    clientSecret: registered.client_secret,
    tokenEndpointAuthMethod: registered.token_endpoint_auth_method ?? method,
    // RFC 7591: 0 means the secret does not expire.
    secretExpiresAt: expiresAt ? new Date(expiresAt * 1000) : null,
  });
}
