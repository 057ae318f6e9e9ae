import {
  KeycloakAdminClient,
  type KeycloakAdminOptions,
  KeycloakRequestFailed,
  KeycloakUnavailable,
} from '../keycloak/admin-client.js';
import {
  type IdentityProvider,
  IdentityProviderUnavailable,
  type UserAccess,
} from './identity-provider.js';
import { permissionsFromGroups } from './principal.js';

/**
 * The API's view of Keycloak: a user's current roles, organizations and groups in each
 * (admin REST API).
 */
export class KeycloakIdentityProvider implements IdentityProvider {
  private readonly admin: KeycloakAdminClient;

  constructor(options: KeycloakAdminOptions) {
    this.admin = new KeycloakAdminClient(options);
  }

  async userAccess(userId: string): Promise<UserAccess | undefined> {
    try {
      const id = encodeURIComponent(userId);
      const user = await this.admin.get<{ id: string; username: string; enabled: boolean }>(
        `/users/${id}`,
      );
      if (!user) return undefined;
      const [roles, orgs] = await Promise.all([
        this.admin.get<{ name: string }[]>(`/users/${id}/role-mappings/realm/composite`),
        this.admin.get<{ id: string; alias: string }[]>(
          `/organizations/members/${id}/organizations`,
        ),
      ]);
      // The groups the user is in, per organization: what the token's organization group
      // membership claim carries for a JWT caller (permissionsFromGroups reads both).
      const organizations = await Promise.all(
        (orgs ?? []).map(async (o) => {
          const groups = await this.admin.get<{ path: string }[]>(
            `/organizations/${encodeURIComponent(o.id)}/members/${id}/groups?briefRepresentation=true&max=1000`,
          );
          return {
            id: o.id,
            alias: o.alias,
            permissions: permissionsFromGroups((groups ?? []).map((g) => g.path)),
          };
        }),
      );
      return {
        userId: user.id,
        username: user.username,
        enabled: user.enabled,
        roles: new Set((roles ?? []).map((r) => r.name)),
        organizations,
      };
    } catch (err) {
      // Any failure to ask (including an unexpected 4xx from a misconfigured client) means we
      // cannot vouch for the key right now: 503, never a silent 401.
      if (err instanceof KeycloakUnavailable || err instanceof KeycloakRequestFailed) {
        throw new IdentityProviderUnavailable(err.message);
      }
      throw err;
    }
  }
}
