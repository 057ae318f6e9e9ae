import type { Logger } from '@aiplane/lib';
import type { ApiConfig } from '../config.js';
import type { ApiKeyStore } from '../store/api-key-store.js';
import { Authenticator } from './authenticator.js';
import { CachedIdentityProvider } from './identity-provider.js';
import { JwtVerifier } from './jwt-verifier.js';
import { KeycloakIdentityProvider } from './keycloak.js';

/** The one way the API and the gateway authenticate callers: JWTs and API keys (ADR 0004). */
export function authenticatorFromConfig(
  config: ApiConfig,
  apiKeys: ApiKeyStore,
  logger: Logger,
): Authenticator {
  const idp = config.identityProvider;
  return new Authenticator({
    jwt: new JwtVerifier(config.oidc),
    apiKeys,
    identityProvider: new CachedIdentityProvider(
      new KeycloakIdentityProvider({
        url: idp.url,
        realm: idp.realm,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
      }),
      idp.accessCacheSeconds * 1000,
    ),
    logger,
  });
}
