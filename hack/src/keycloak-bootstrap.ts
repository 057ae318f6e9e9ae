import { isDeepStrictEqual } from 'node:util';
import { KeycloakAdminApi, type AdminCredentials } from './keycloak-admin-api.js';
import { setOrganizationPermissions } from './keycloak-org-permissions.js';
import {
  API_CLIENT,
  AUDIENCE,
  confidentialClient,
  DEV_USERS,
  LOCAL_PASSWORD_POLICY,
  OPERATOR_CLIENT,
  ORGANIZATION,
  PORTAL_CLIENT,
  PORTAL_SCOPES,
  portalClient,
  REALM,
  ROLES,
  SERVICE_ACCOUNT_ROLES,
  USERS,
  userRepresentation,
  type DevUserName,
  type ProtocolMapper,
} from './keycloak-realm.js';
import { passwordGrant, TokenError, type PasswordGrantTarget } from './keycloak-token.js';

export interface DevUser {
  username: string;
  password: string;
  id: string;
}

/** Everything a test or `make dev` needs to talk to the local Keycloak (env.json has it). */
export interface KeycloakInfo {
  /** Base URL, e.g. http://127.0.0.1:41234 (admin console at /admin/). */
  url: string;
  realm: string;
  issuer: string;
  jwksUri: string;
  tokenEndpoint: string;
  /** The master realm's bootstrap admin. */
  admin: AdminCredentials;
  clients: {
    portal: { clientId: string };
    api: { clientId: string; clientSecret: string };
    operator: { clientId: string; clientSecret: string };
  };
  /** Every access token issued to the portal carries it in `aud`. */
  audience: string;
  organization: { id: string; alias: string };
  users: Record<DevUserName, DevUser>;
}

export interface BootstrapOptions {
  url: string;
  admin: AdminCredentials;
  /** Wanted passwords; a user whose password already works is left untouched. */
  passwords: Record<DevUserName, string>;
  /** Told of every admin REST write (method and path), e.g. to prove a rerun writes nothing. */
  onWrite?: (method: string, path: string) => void;
}

type Rep = Record<string, unknown>;
interface Named {
  id: string;
  name: string;
}

/** True when `current` lacks a field of `wanted` or holds another value (arrays as sets). */
function differs(current: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted) && Array.isArray(current)) {
    const sorted = (a: unknown[]) => a.map((x) => JSON.stringify(x)).sort();
    return !isDeepStrictEqual(sorted(current as unknown[]), sorted(wanted as unknown[]));
  }
  if (wanted && typeof wanted === 'object' && current && typeof current === 'object') {
    const cur = current as Rep;
    return Object.entries(wanted).some(([k, v]) => differs(cur[k], v));
  }
  return !isDeepStrictEqual(current, wanted);
}

function created(id: string | undefined, what: string): string {
  if (!id) throw new Error(`keycloak did not answer the id of ${what}`);
  return id;
}

/**
 * Brings the local Keycloak to the state of keycloak-realm.ts: realm `aiplane` with
 * organizations, the realm roles, the portal, API and operator clients, the audience and
 * organization claims, organization `acme` and the dev users. Idempotent: every step reads
 * first and writes only what differs, so a second run writes nothing.
 */
export async function bootstrapKeycloak(opts: BootstrapOptions): Promise<KeycloakInfo> {
  const kc = new KeycloakAdminApi(opts.url, opts.admin, opts.onWrite);
  const r = `/${REALM}`;

  const realm = await kc.find<Rep>(r);
  const wantedRealm = {
    realm: REALM,
    enabled: true,
    organizationsEnabled: true,
    passwordPolicy: LOCAL_PASSWORD_POLICY,
  };
  if (!realm) await kc.post('', { ...wantedRealm, displayName: 'aiplane' });
  else if (differs(realm, wantedRealm)) await kc.put(r, wantedRealm);

  for (const name of ROLES) {
    if (!(await kc.find(`${r}/roles/${encodeURIComponent(name)}`))) {
      await kc.post(`${r}/roles`, { name, description: `aiplane: ${name}` });
    }
  }

  const portalId = await ensureClient(kc, portalClient());
  const apiId = await ensureClient(kc, confidentialClient(API_CLIENT, 'aiplane API'));
  const operatorId = await ensureClient(
    kc,
    confidentialClient(OPERATOR_CLIENT, 'aiplane operator'),
  );
  await ensurePortalScopes(kc, portalId);
  await ensureServiceAccountRoles(kc, apiId, SERVICE_ACCOUNT_ROLES[API_CLIENT] ?? []);
  await ensureServiceAccountRoles(kc, operatorId, SERVICE_ACCOUNT_ROLES[OPERATOR_CLIENT] ?? []);

  const orgs = await kc.get<{ id: string; alias: string }[]>(
    `${r}/organizations?search=${ORGANIZATION.name}&exact=true&max=100`,
  );
  const orgId =
    orgs.find((o) => o.alias === ORGANIZATION.alias)?.id ??
    created(await kc.post(`${r}/organizations`, { ...ORGANIZATION, enabled: true }), 'acme');

  const discovery = (await (
    await fetch(`${opts.url}/realms/${REALM}/.well-known/openid-configuration`)
  ).json()) as { issuer: string; jwks_uri: string; token_endpoint: string };
  const grantTarget = {
    tokenEndpoint: discovery.token_endpoint,
    clients: { portal: { clientId: PORTAL_CLIENT } },
  };
  const users = {} as Record<DevUserName, DevUser>;
  for (const username of DEV_USERS) {
    const password = opts.passwords[username];
    const id = await ensureUser(kc, grantTarget, username, password, orgId);
    users[username] = { username, password, id };
  }

  const secretOf = async (id: string) =>
    (await kc.get<{ value: string }>(`${r}/clients/${id}/client-secret`)).value;
  return {
    url: opts.url,
    realm: REALM,
    issuer: discovery.issuer,
    jwksUri: discovery.jwks_uri,
    tokenEndpoint: discovery.token_endpoint,
    admin: { ...opts.admin },
    clients: {
      portal: { clientId: PORTAL_CLIENT },
      api: { clientId: API_CLIENT, clientSecret: await secretOf(apiId) },
      operator: { clientId: OPERATOR_CLIENT, clientSecret: await secretOf(operatorId) },
    },
    audience: AUDIENCE,
    organization: { id: orgId, alias: ORGANIZATION.alias },
    users,
  };
}

async function ensureClient(kc: KeycloakAdminApi, wanted: Rep): Promise<string> {
  const clientId = wanted.clientId as string;
  const [found] = await kc.get<({ id: string } & Rep)[]>(
    `/${REALM}/clients?clientId=${encodeURIComponent(clientId)}`,
  );
  if (!found) return created(await kc.post(`/${REALM}/clients`, wanted), `client ${clientId}`);
  if (differs(found, wanted))
    await kc.put(`/${REALM}/clients/${found.id}`, { ...found, ...wanted });
  return found.id;
}

/** Each scope exists with its mapper and is a default (not optional) scope of the portal. */
async function ensurePortalScopes(kc: KeycloakAdminApi, portalId: string): Promise<void> {
  const r = `/${REALM}`;
  const portal = `${r}/clients/${portalId}`;
  const scopes = await kc.get<Named[]>(`${r}/client-scopes`);
  const defaults = await kc.get<Named[]>(`${portal}/default-client-scopes`);
  const optional = await kc.get<Named[]>(`${portal}/optional-client-scopes`);
  for (const { scope, mappers } of PORTAL_SCOPES) {
    const scopeId =
      scopes.find((s) => s.name === scope)?.id ??
      created(
        await kc.post(`${r}/client-scopes`, {
          name: scope,
          protocol: 'openid-connect',
          attributes: { 'include.in.token.scope': 'false', 'display.on.consent.screen': 'false' },
        }),
        `client scope ${scope}`,
      );
    const mappersPath = `${r}/client-scopes/${scopeId}/protocol-mappers/models`;
    const existing = await kc.get<ProtocolMapper[]>(mappersPath);
    for (const mapper of mappers) {
      const found = existing.find((m) => m.name === mapper.name);
      if (!found) await kc.post(mappersPath, mapper);
      else if (differs(found, mapper)) {
        await kc.put(`${mappersPath}/${found.id}`, { ...found, ...mapper });
      }
    }
    if (defaults.some((s) => s.id === scopeId)) continue;
    if (optional.some((s) => s.id === scopeId)) {
      await kc.delete(`${portal}/optional-client-scopes/${scopeId}`);
    }
    await kc.put(`${portal}/default-client-scopes/${scopeId}`, {});
  }
}

/** The client's service account holds exactly `roles` of the realm-management client. */
async function ensureServiceAccountRoles(
  kc: KeycloakAdminApi,
  clientUuid: string,
  roles: string[],
): Promise<void> {
  const r = `/${REALM}`;
  const [rm] = await kc.get<Named[]>(`${r}/clients?clientId=realm-management`);
  if (!rm) throw new Error('the realm-management client is missing');
  const account = await kc.get<{ id: string }>(`${r}/clients/${clientUuid}/service-account-user`);
  const path = `${r}/users/${account.id}/role-mappings/clients/${rm.id}`;
  const have = await kc.get<Named[]>(path);
  const missing: Named[] = [];
  for (const role of roles.filter((w) => !have.some((h) => h.name === w))) {
    missing.push(await kc.get<Named>(`${r}/clients/${rm.id}/roles/${role}`));
  }
  if (missing.length > 0) await kc.post(path, missing);
  const extra = have.filter((h) => !roles.includes(h.name));
  if (extra.length > 0) await kc.delete(path, extra);
}

/** The user exists as wanted, logs in with `password`, has its roles and membership. */
async function ensureUser(
  kc: KeycloakAdminApi,
  grantTarget: PasswordGrantTarget,
  username: DevUserName,
  password: string,
  orgId: string,
): Promise<string> {
  const r = `/${REALM}`;
  const wanted = userRepresentation(username);
  const [found] = await kc.get<({ id: string } & Rep)[]>(
    `${r}/users?username=${encodeURIComponent(username)}&exact=true`,
  );
  let id: string;
  if (!found) {
    const credentials = [{ type: 'password', value: password, temporary: false }];
    id = created(await kc.post(`${r}/users`, { ...wanted, credentials }), `user ${username}`);
  } else {
    id = found.id;
    if (differs(found, wanted)) await kc.put(`${r}/users/${id}`, { ...found, ...wanted });
    if (!(await passwordWorks(grantTarget, username, password))) {
      await kc.put(`${r}/users/${id}/reset-password`, {
        type: 'password',
        value: password,
        temporary: false,
      });
    }
  }

  const spec = USERS[username];
  const rolesPath = `${r}/users/${id}/role-mappings/realm`;
  const mapped = await kc.get<Named[]>(rolesPath);
  const add: Named[] = [];
  for (const name of spec.roles.filter((n) => !mapped.some((m) => m.name === n))) {
    add.push(await kc.get<Named>(`${r}/roles/${encodeURIComponent(name)}`));
  }
  if (add.length > 0) await kc.post(rolesPath, add);
  const remove = mapped.filter((m) => ROLES.includes(m.name) && !spec.roles.includes(m.name));
  if (remove.length > 0) await kc.delete(rolesPath, remove);

  const memberOf = await kc.get<{ id: string }[]>(`${r}/organizations/members/${id}/organizations`);
  const isMember = memberOf.some((o) => o.id === orgId);
  // The body of "add member" is the user id as a JSON string.
  if (spec.member && !isMember) await kc.post(`${r}/organizations/${orgId}/members`, id);
  if (!spec.member && isMember) await kc.delete(`${r}/organizations/${orgId}/members/${id}`);
  if (spec.member) await setOrganizationPermissions(kc, orgId, id, spec.organizationPermissions);
  return id;
}

async function passwordWorks(
  target: PasswordGrantTarget,
  username: string,
  password: string,
): Promise<boolean> {
  try {
    await passwordGrant(target, { username, password });
    return true;
  } catch (err) {
    if (err instanceof TokenError && err.error === 'invalid_grant') return false;
    throw err;
  }
}
