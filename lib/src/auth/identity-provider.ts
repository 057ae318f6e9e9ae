import type { OrganizationRef } from './principal.js';

/** What the identity provider says of a user right now. */
export interface UserAccess {
  userId: string;
  username: string;
  enabled: boolean;
  roles: ReadonlySet<string>;
  organizations: readonly OrganizationRef[];
}

/** Raised when the identity provider cannot be asked (network, 5xx, bad credentials). */
export class IdentityProviderUnavailable extends Error {}

/** The identity provider as the API needs it (Keycloak first; Zitadel later). */
export interface IdentityProvider {
  /** The user's current access, or undefined when the user does not exist. */
  userAccess(userId: string): Promise<UserAccess | undefined>;
}

/** Caches answers for `ttlMs`, and shares one lookup among concurrent callers. */
export class CachedIdentityProvider implements IdentityProvider {
  private readonly entries = new Map<
    string,
    { at: number; value: Promise<UserAccess | undefined> }
  >();

  constructor(
    private readonly inner: IdentityProvider,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  userAccess(userId: string): Promise<UserAccess | undefined> {
    const hit = this.entries.get(userId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.inner.userAccess(userId);
    this.entries.set(userId, { at: this.now(), value });
    // A failure is not cached: the next call asks again.
    value.catch(() => this.entries.delete(userId));
    if (this.entries.size > 10_000) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return value;
  }
}
