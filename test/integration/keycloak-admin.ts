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

export async function setRealmRole(userId: string, role: string, present: boolean): Promise<void> {
  const roleRes = await kcAdmin(`/roles/${encodeURIComponent(role)}`);
  const rep = (await roleRes.json()) as { id: string; name: string };
  const res = await kcAdmin(`/users/${userId}/role-mappings/realm`, {
    method: present ? 'POST' : 'DELETE',
    body: [{ id: rep.id, name: rep.name }],
  });
  if (!res.ok) throw new Error(`could not change role ${role}: ${res.status}`);
}

export async function setUserEnabled(userId: string, enabled: boolean): Promise<void> {
  const res = await kcAdmin(`/users/${userId}`, { method: 'PUT', body: { enabled } });
  if (!res.ok) throw new Error(`could not set enabled=${enabled}: ${res.status}`);
}
