import type { Logger } from '../logger.js';
import { ApiError } from '../errors/api-error.js';
import type { ApiKeyStore } from './api-key-store.js';
import { looksLikeApiKey, parseApiKey } from './api-key-format.js';
import { type IdentityProvider, IdentityProviderUnavailable } from './identity-provider.js';
import { type JwtVerifier, SigningKeysUnavailable, TokenRejected } from './jwt-verifier.js';
import { organizationsFromClaim, type Principal, rolesFromClaims } from './principal.js';

/** What a request presents; the HTTP and WebSocket paths both fill it in. */
export interface PresentedCredentials {
  /** `X-Api-Key` header. */
  apiKey?: string;
  /** The value after `Bearer ` in `Authorization`, or a WebSocket's `token` parameter. */
  bearer?: string;
}

const CHALLENGE = 'Bearer realm="aiplane"';

function challenge(error: string, description: string): Record<string, string> {
  return {
    'WWW-Authenticate': `${CHALLENGE}, error="${error}", error_description="${description}"`,
  };
}

/** How often one replica records a key's use (the store's own bound is the same minute). */
const TOUCH_EVERY_MS = 60_000;

/** Turns presented credentials into a {@link Principal}, or throws an {@link ApiError}. */
export class Authenticator {
  /** When this replica last recorded each key's use: no query per request for it. */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly deps: {
      jwt: JwtVerifier;
      apiKeys: ApiKeyStore;
      identityProvider: IdentityProvider;
      logger: Logger;
    },
  ) {}

  async authenticate(creds: PresentedCredentials): Promise<Principal> {
    // X-Api-Key wins when both are present (spec: core-api.md, Authentication 2).
    if (creds.apiKey !== undefined) return this.apiKey(creds.apiKey);
    if (creds.bearer === undefined || creds.bearer === '') {
      throw new ApiError('authentication_required', 'send a JWT or an API key', {
        'WWW-Authenticate': CHALLENGE,
      });
    }
    if (looksLikeApiKey(creds.bearer)) return this.apiKey(creds.bearer);
    return this.jwt(creds.bearer);
  }

  private async jwt(token: string): Promise<Principal> {
    let payload;
    try {
      payload = await this.deps.jwt.verify(token);
    } catch (err) {
      if (err instanceof TokenRejected) {
        throw new ApiError('invalid_token', err.message, challenge('invalid_token', err.message));
      }
      if (err instanceof SigningKeysUnavailable) {
        this.deps.logger.warn({ err }, 'identity provider unavailable while verifying a JWT');
        throw new ApiError(
          'identity_provider_unavailable',
          'the identity provider could not be reached; retry',
        );
      }
      throw err;
    }
    return {
      userId: payload.sub as string,
      username:
        typeof payload.preferred_username === 'string' ? payload.preferred_username : undefined,
      roles: rolesFromClaims(payload),
      organizations: organizationsFromClaim(payload.organization),
      via: 'jwt',
    };
  }

  private async apiKey(key: string): Promise<Principal> {
    const invalid = (why: string) =>
      new ApiError('invalid_api_key', why, challenge('invalid_token', why));
    const parsed = parseApiKey(key);
    if (!parsed) throw invalid('the API key is malformed');
    const record = await this.deps.apiKeys.verify(key, parsed.prefix);
    if (!record) throw invalid('the API key is unknown or revoked');
    let access;
    try {
      access = await this.deps.identityProvider.userAccess(record.userId);
    } catch (err) {
      if (err instanceof IdentityProviderUnavailable) {
        this.deps.logger.warn(
          { err },
          'identity provider unavailable while checking an API key owner',
        );
        throw new ApiError(
          'identity_provider_unavailable',
          'the identity provider could not be reached; retry',
        );
      }
      throw err;
    }
    if (!access?.enabled) throw invalid('the API key owner is disabled or gone');
    this.touch(record.id);
    // The key acts with the owner's current roles and organizations, not those of its creation.
    return {
      userId: access.userId,
      username: access.username,
      roles: access.roles,
      organizations: access.organizations,
      via: 'api_key',
      apiKeyId: record.id,
    };
  }

  /** Records a key's use at most once a minute from this replica, without waiting for it. */
  private touch(id: string): void {
    const now = Date.now();
    const last = this.touched.get(id);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    this.touched.delete(id);
    this.touched.set(id, now);
    if (this.touched.size > 10_000) {
      const oldest = this.touched.keys().next().value;
      if (oldest !== undefined) this.touched.delete(oldest);
    }
    this.deps.apiKeys.touch(id).catch((err: unknown) => {
      this.touched.delete(id);
      this.deps.logger.warn({ err, apiKeyId: id }, 'could not record API key use');
    });
  }
}
