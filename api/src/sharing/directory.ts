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
  /** The ids of the organization's groups the user is a member of, and the groups above them. */
  groupsOf(organizationId: string, userId: string): Promise<string[]>;
  isMember(organizationId: string, userId: string): Promise<boolean>;
  isGroup(organizationId: string, groupId: string): Promise<boolean>;
}

/** A group as the admin API answers it (brief). */
interface Group {
  id: string;
  /** The group above it; absent for a top-level group. */
  parentId?: string;
}

/** Levels of subgroups followed up (Keycloak allows deeper trees; sharing stops here). */
const MAX_GROUP_DEPTH = 20;

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
      const found = await this.admin.get<Group[]>(
        `${this.org(organizationId)}/members/${encodeURIComponent(userId)}/groups?briefRepresentation=true&max=1000`,
      );
      return this.withAncestors(organizationId, found ?? []);
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

  /**
   * The groups and every group above them: a member of a subgroup is a member of its parent
   * for sharing (a share with `/engineering` reaches `/engineering/platform`). Parents are read
   * by id (`parentId`), each at most once per call, at most MAX_GROUP_DEPTH levels up.
   */
  private async withAncestors(organizationId: string, groups: Group[]): Promise<string[]> {
    const ids = new Set(groups.map((g) => g.id));
    let pending = groups.map((g) => g.parentId).filter((p): p is string => !!p && !ids.has(p));
    for (let depth = 0; pending.length > 0 && depth < MAX_GROUP_DEPTH; depth++) {
      const next: string[] = [];
      for (const id of new Set(pending)) {
        ids.add(id);
        const parent = await this.admin.get<Group>(
          `${this.org(organizationId)}/groups/${encodeURIComponent(id)}`,
        );
        if (parent?.parentId && !ids.has(parent.parentId)) next.push(parent.parentId);
      }
      pending = next;
    }
    return [...ids];
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
