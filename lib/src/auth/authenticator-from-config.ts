import type { Logger } from '../logger.js';
import type { ServiceConfig } from '../service/config.js';
import type { ApiKeyStore } from './api-key-store.js';
import { Authenticator } from './authenticator.js';
import { CachedIdentityProvider } from './identity-provider.js';
import { JwtVerifier } from './jwt-verifier.js';
import { KeycloakIdentityProvider } from './keycloak.js';

/** The one way the API and the gateway authenticate callers: JWTs and API keys (ADR 0004). */
export function authenticatorFromConfig(
  config: ServiceConfig,
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
