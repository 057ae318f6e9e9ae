import { KeycloakAdminApi, setOrganizationPermissions } from '@aiplane/hack';
import { randomBytes } from 'node:crypto';
import { forgetCachedTokens, keycloak, type TestUser } from './api-helpers.js';
import { newSecret, rememberSecret } from './secrets.js';

/**
 * The bootstrap admin's master-realm token, reused until 10 s before it expires: a password
 * grant costs Keycloak a password hash, and the suites call the admin API hundreds of times.
 */
let adminToken: { value: string; url: string; expiresAt: number } | undefined;

async function cachedAdminToken(): Promise<string> {
  const info = keycloak();
  if (adminToken && adminToken.url === info.url && adminToken.expiresAt > Date.now() + 10_000) {
    return adminToken.value;
  }
  const { access_token, expires_in } = await adminCliGrant(
    `${info.url}/realms/master/protocol/openid-connect/token`,
    info.admin.username,
    info.admin.password,
  );
  adminToken = { value: access_token, url: info.url, expiresAt: Date.now() + expires_in * 1000 };
  return access_token;
}

/** One admin client per Keycloak (it keeps its token until shortly before it expires). */
let shared: { url: string; api: KeycloakAdminApi } | undefined;

function adminApi(): KeycloakAdminApi {
  const info = keycloak();
  if (shared?.url !== info.url)
    shared = { url: info.url, api: new KeycloakAdminApi(info.url, info.admin) };
  return shared.api;
}

/** Calls Keycloak's admin REST API as the bootstrap admin (master realm, admin-cli). */
export async function kcAdmin(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Response> {
  const info = keycloak();
  const send = async () =>
    fetch(`${info.url}/admin/realms/${info.realm}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${await cachedAdminToken()}`,
        'content-type': 'application/json',
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const res = await send();
  if (res.status !== 401) return res;
  // Ended early (a session logout, a restarted Keycloak): once more with a new token.
  await res.body?.cancel();
  adminToken = undefined;
  return send();
}

/** A password grant to admin-cli at `tokenEndpoint`; the token, remembered for the log sweep. */
async function adminCliGrant(
  tokenEndpoint: string,
  username: string,
  password: string,
): Promise<{ access_token: string; expires_in: number }> {
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'admin-cli',
      username,
      password,
    }),
  });
  const reply = (await res.json()) as { access_token: string; expires_in?: number };
  rememberSecret(reply.access_token);
  return { access_token: reply.access_token, expires_in: reply.expires_in ?? 60 };
}

async function adminCliToken(
  tokenEndpoint: string,
  username: string,
  password: string,
): Promise<string> {
  return (await adminCliGrant(tokenEndpoint, username, password)).access_token;
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
  await setOrganizationPermissions(adminApi(), organizationId, userId, permissions);
  forgetCachedTokens();
}

/** Makes the user a member of the organization, or not (idempotent). */
export async function setOrganizationMember(
  organizationId: string,
  userId: string,
  member: boolean,
): Promise<void> {
  const res = member
    ? await kcAdmin(`/organizations/${organizationId}/members`, { method: 'POST', body: userId })
    : await kcAdmin(`/organizations/${organizationId}/members/${userId}`, { method: 'DELETE' });
  // Adding an existing member answers 409; removing a non-member 404: both are the wanted state.
  if (!res.ok && res.status !== (member ? 409 : 404)) {
    throw new Error(
      `membership of ${userId} in ${organizationId}: ${res.status} ${await res.text()}`,
    );
  }
  forgetCachedTokens();
}

/**
 * A new user of the realm with a random password and nothing else (no role, no organization),
 * for a suite that needs more people than the dev users; the suite deletes it
 * ({@link deleteTestUser}).
 */
export async function createTestUser(label: string): Promise<TestUser> {
  const username = `${label}-${randomBytes(4).toString('hex')}`;
  const password = newSecret(`pw-${label}`);
  const res = await kcAdmin('/users', {
    method: 'POST',
    body: {
      username,
      enabled: true,
      email: `${username}@aiplane.test`,
      emailVerified: true,
      firstName: label,
      lastName: 'Test',
      requiredActions: [],
      credentials: [{ type: 'password', value: password, temporary: false }],
    },
  });
  if (res.status !== 201) throw new Error(`user ${username}: ${res.status} ${await res.text()}`);
  const id = res.headers.get('location')?.split('/').pop();
  if (!id) throw new Error(`user ${username}: no id in the answer`);
  return { id, username, password };
}

export async function deleteTestUser(user: TestUser): Promise<void> {
  const res = await kcAdmin(`/users/${user.id}`, { method: 'DELETE' });
  if (!res.ok && res.status !== 404) throw new Error(`delete ${user.username}: ${res.status}`);
}
