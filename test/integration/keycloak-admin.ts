import { KeycloakAdminApi, setOrganizationPermissions } from '@aiplane/hack';
import { keycloak } from './api-helpers.js';
import { rememberSecret } from './secrets.js';

/** Calls Keycloak's admin REST API as the bootstrap admin (master realm, admin-cli). */
export async function kcAdmin(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Response> {
  const info = keycloak();
  return fetch(`${info.url}/admin/realms/${info.realm}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${await masterRealmToken()}`,
      'content-type': 'application/json',
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** A password grant to admin-cli at `tokenEndpoint`; the token, remembered for the log sweep. */
async function adminCliToken(
  tokenEndpoint: string,
  username: string,
  password: string,
): Promise<string> {
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'admin-cli',
      username,
      password,
    }),
  });
  const { access_token } = (await res.json()) as { access_token: string };
  rememberSecret(access_token);
  return access_token;
}

/** A master-realm token of the bootstrap admin (right signature scheme, wrong issuer for the API). */
export async function masterRealmToken(): Promise<string> {
  const info = keycloak();
  return adminCliToken(
    `${info.url}/realms/master/protocol/openid-connect/token`,
    info.admin.username,
    info.admin.password,
  );
}

/** A token of the aiplane realm issued to admin-cli: right issuer, no aiplane-api audience. */
export async function wrongAudienceToken(username: string, password: string): Promise<string> {
  return adminCliToken(keycloak().tokenEndpoint, username, password);
}

export async function setUserEnabled(userId: string, enabled: boolean): Promise<void> {
  const res = await kcAdmin(`/users/${userId}`, { method: 'PUT', body: { enabled } });
  if (!res.ok) throw new Error(`could not set enabled=${enabled}: ${res.status}`);
}

/** The user holds exactly `permissions` in the organization, through its permission groups. */
export async function setPermissionsIn(
  organizationId: string,
  userId: string,
  permissions: readonly string[],
): Promise<void> {
  const info = keycloak();
  const kc = new KeycloakAdminApi(info.url, info.admin);
  await setOrganizationPermissions(kc, organizationId, userId, permissions);
}
