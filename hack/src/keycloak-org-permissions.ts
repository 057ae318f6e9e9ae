// Organization-scoped permissions in Keycloak (docs/adr/0022): one organization group per
// permission; membership grants the permission in that organization.
import type { KeycloakAdminApi } from './keycloak-admin-api.js';
import { PERMISSION_NAMES, REALM } from './keycloak-realm.js';

interface Group {
  id: string;
  name: string;
}

/** The organization's permission groups (created when missing): name → group id. */
export async function ensurePermissionGroups(
  kc: KeycloakAdminApi,
  organizationId: string,
): Promise<Map<string, string>> {
  const path = `/${REALM}/organizations/${organizationId}/groups`;
  const groups = await kc.get<Group[]>(`${path}?max=1000&briefRepresentation=true`);
  const ids = new Map<string, string>();
  for (const name of PERMISSION_NAMES) {
    const id = groups.find((g) => g.name === name)?.id ?? (await kc.post(path, { name }));
    if (!id) throw new Error(`keycloak did not answer the id of group ${name}`);
    ids.set(name, id);
  }
  return ids;
}

/**
 * The user holds exactly `permissions` in the organization through its permission groups
 * (a member of the organization already; groups outside PERMISSION_NAMES are left alone).
 */
export async function setOrganizationPermissions(
  kc: KeycloakAdminApi,
  organizationId: string,
  userId: string,
  permissions: readonly string[],
): Promise<void> {
  const org = `/${REALM}/organizations/${organizationId}`;
  const groups = await ensurePermissionGroups(kc, organizationId);
  const held = await kc.get<Group[]>(`${org}/members/${userId}/groups?briefRepresentation=true`);
  for (const [name, groupId] of groups) {
    const has = held.some((g) => g.id === groupId);
    const wanted = permissions.includes(name);
    if (wanted && !has) await kc.put(`${org}/groups/${groupId}/members/${userId}`, {});
    if (!wanted && has) await kc.delete(`${org}/groups/${groupId}/members/${userId}`);
  }
}
