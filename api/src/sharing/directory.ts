import {
  KeycloakAdminClient,
  type KeycloakAdminOptions,
  KeycloakRequestFailed,
  KeycloakUnavailable,
} from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';

/**
 * Who is who for sharing (docs/adr/0032): the identity provider's groups of an organization
 * and its members. Share targets are checked against it; a caller's groups decide which group
 * shares reach them.
 */
export interface SharingDirectory {
  /** The ids of the organization's groups the user is a member of. */
  groupsOf(organizationId: string, userId: string): Promise<string[]>;
  isMember(organizationId: string, userId: string): Promise<boolean>;
  isGroup(organizationId: string, groupId: string): Promise<boolean>;
}

/**
 * Keycloak's organization groups (Keycloak ≥ 26.6) through the admin REST API, with the API's
 * service account (`view-organizations`). A user's groups are cached `cacheMs` (the identity
 * cache time of API-key callers); a failure to ask is 503 `identity_provider_unavailable`.
 */
export class KeycloakSharingDirectory implements SharingDirectory {
  private readonly admin: KeycloakAdminClient;
  private readonly cache = new Map<string, { at: number; groups: Promise<string[]> }>();

  constructor(
    options: KeycloakAdminOptions,
    private readonly cacheMs: number,
  ) {
    this.admin = new KeycloakAdminClient(options);
  }

  groupsOf(organizationId: string, userId: string): Promise<string[]> {
    const key = `${organizationId}/${userId}`;
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < this.cacheMs) return hit.groups;
    const groups = this.ask(async () => {
      const found = await this.admin.get<{ id: string }[]>(
        `${this.org(organizationId)}/members/${encodeURIComponent(userId)}/groups?briefRepresentation=true&max=1000`,
      );
      return (found ?? []).map((g) => g.id);
    });
    this.cache.set(key, { at: Date.now(), groups });
    groups.catch(() => this.cache.delete(key));
    if (this.cache.size > 10_000) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return groups;
  }

  isMember(organizationId: string, userId: string): Promise<boolean> {
    return this.ask(
      async () =>
        (await this.admin.get(
          `${this.org(organizationId)}/members/${encodeURIComponent(userId)}`,
        )) !== undefined,
    );
  }

  isGroup(organizationId: string, groupId: string): Promise<boolean> {
    return this.ask(
      async () =>
        (await this.admin.get(
          `${this.org(organizationId)}/groups/${encodeURIComponent(groupId)}`,
        )) !== undefined,
    );
  }

  private org(organizationId: string): string {
    return `/organizations/${encodeURIComponent(organizationId)}`;
  }

  private async ask<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof KeycloakUnavailable || err instanceof KeycloakRequestFailed) {
        throw new ApiError(
          'identity_provider_unavailable',
          'the identity provider could not be reached to resolve groups; retry',
        );
      }
      throw err;
    }
  }
}
