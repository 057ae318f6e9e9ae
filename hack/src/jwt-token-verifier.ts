import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/**
 * Verifies JWT access tokens of an OpenID provider (signature by its JWKS, issuer, expiry),
 * for an MCP test server whose authorization server is the local Keycloak. The audience is not
 * checked: Keycloak does not honour the RFC 8707 resource parameter.
 */
export function jwtTokenVerifier(opts: { issuer: string; jwksUri: string }): OAuthTokenVerifier {
  const keys = createRemoteJWKSet(new URL(opts.jwksUri));
  return {
    verifyAccessToken: async (token) => {
      try {
        const { payload } = await jwtVerify(token, keys, { issuer: opts.issuer });
        return {
          token,
          clientId: typeof payload.azp === 'string' ? payload.azp : '',
          scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
          ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
        };
      } catch {
        throw new InvalidTokenError('the access token is not valid');
      }
    },
  };
}
