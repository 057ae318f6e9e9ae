/**
 * The permissions (spec: core-api.md, Permissions). Each is held per organization, through
 * membership of the organization's group of that name; a realm role of that name grants it in
 * every organization (docs/adr/0022).
 */
export const PERMISSIONS = ['can_access_api', 'can_manage_models', 'can_edit_config'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The role of the Admin level of the MCP and tenant routes. */
export const PLATFORM_ADMIN_ROLE = 'platform-admin';

export interface OrganizationRef {
  id: string;
  alias: string;
  /** What the caller holds in this organization through its groups (realm roles apart). */
  permissions: readonly Permission[];
}

/** Who calls, as every route sees it, however they authenticated. */
export interface Principal {
  userId: string;
  username?: string;
  /** Realm roles: platform-wide grants (a permission held as a realm role holds everywhere). */
  roles: ReadonlySet<string>;
  organizations: readonly OrganizationRef[];
  via: 'jwt' | 'api_key';
  /** Set when `via` is `api_key`. */
  apiKeyId?: string;
}

const isPermission = (name: string): name is Permission =>
  (PERMISSIONS as readonly string[]).includes(name);

/** The permissions the caller holds in one organization: its groups there and realm roles. */
export function permissionsIn(p: Principal, organizationId: string): Set<Permission> {
  const held = new Set<Permission>(PERMISSIONS.filter((perm) => p.roles.has(perm)));
  for (const perm of p.organizations.find((o) => o.id === organizationId)?.permissions ?? []) {
    held.add(perm);
  }
  return held;
}

/**
 * Whether the caller holds `permission` in `organizationId`; without an organization, whether
 * they hold it anywhere (a realm role or any organization of theirs).
 */
export function hasPermission(
  p: Principal,
  permission: Permission,
  organizationId?: string,
): boolean {
  if (p.roles.has(permission)) return true;
  if (organizationId !== undefined) return permissionsIn(p, organizationId).has(permission);
  return p.organizations.some((o) => o.permissions.includes(permission));
}

export function isPlatformAdmin(p: Principal): boolean {
  return p.roles.has(PLATFORM_ADMIN_ROLE);
}

/**
 * Whether the caller administers the organization (spec: core-api.md, Sharing roles: "an
 * organization admin"). The platform has no role of its own for one tenant's administrator
 * yet, so this is the platform admin acting in it (docs/adr/0035); a tenant administrator
 * role, when it comes, is added here and nowhere else.
 */
export function isOrganizationAdmin(p: Principal, _organizationId: string): boolean {
  return isPlatformAdmin(p);
}

/**
 * Permissions from organization group paths: membership of `/can_edit_config` (or of a group
 * beneath it, `/can_edit_config/team-a`) grants `can_edit_config` in that organization.
 */
export function permissionsFromGroups(paths: unknown): Permission[] {
  if (!Array.isArray(paths)) return [];
  const held = new Set<Permission>();
  for (const path of paths) {
    if (typeof path !== 'string') continue;
    const top = path.replace(/^\//, '').split('/')[0] ?? '';
    if (isPermission(top)) held.add(top);
  }
  return PERMISSIONS.filter((perm) => held.has(perm));
}

/**
 * Organizations from an access token's `organization` claim. Keycloak 26 writes either a list
 * of aliases or, with "add organization id", an object `{ alias: { id } }`; only entries with
 * an id are usable (we address organizations by id). The organization group membership mapper
 * adds `groups` (group paths) to each entry.
 */
export function organizationsFromClaim(claim: unknown): OrganizationRef[] {
  if (!claim || typeof claim !== 'object' || Array.isArray(claim)) return [];
  const out: OrganizationRef[] = [];
  for (const [alias, value] of Object.entries(claim as Record<string, unknown>)) {
    const entry = value as { id?: unknown; groups?: unknown } | null;
    const id = entry?.id;
    if (typeof id === 'string' && id !== '') {
      out.push({ id, alias, permissions: permissionsFromGroups(entry?.groups) });
    }
  }
  return out;
}

/** Realm roles from `realm_access.roles`. */
export function rolesFromClaims(payload: Record<string, unknown>): Set<string> {
  const roles = (payload.realm_access as { roles?: unknown } | undefined)?.roles;
  return new Set(
    Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [],
  );
}
