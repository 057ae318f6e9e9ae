/** Realm roles that grant permissions (spec: core-api.md, Permissions). */
export const PERMISSIONS = ['can_access_api', 'can_manage_models', 'can_edit_config'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The role of the Admin level of the MCP and tenant routes. */
export const PLATFORM_ADMIN_ROLE = 'platform-admin';

export interface OrganizationRef {
  id: string;
  alias: string;
}

/** Who calls, as every route sees it, however they authenticated. */
export interface Principal {
  userId: string;
  username?: string;
  roles: ReadonlySet<string>;
  organizations: readonly OrganizationRef[];
  via: 'jwt' | 'api_key';
  /** Set when `via` is `api_key`. */
  apiKeyId?: string;
}

export function hasPermission(p: Principal, permission: Permission): boolean {
  return p.roles.has(permission);
}

export function isPlatformAdmin(p: Principal): boolean {
  return p.roles.has(PLATFORM_ADMIN_ROLE);
}

/**
 * Organizations from an access token's `organization` claim. Keycloak 26 writes either a list
 * of aliases or, with "add organization id", an object `{ alias: { id } }`; only entries with
 * an id are usable (we address organizations by id).
 */
export function organizationsFromClaim(claim: unknown): OrganizationRef[] {
  if (!claim || typeof claim !== 'object' || Array.isArray(claim)) return [];
  const out: OrganizationRef[] = [];
  for (const [alias, value] of Object.entries(claim as Record<string, unknown>)) {
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id !== '') out.push({ id, alias });
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
