import assert from 'node:assert/strict';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import {
  bootstrapKeycloak,
  DEV_USERS,
  KeycloakAdminApi,
  passwordGrant,
  type DevUserName,
  type KeycloakInfo,
} from '@aiplane/hack';
import { environment } from './harness.js';
import { rememberSecret } from './secrets.js';

interface AiplaneClaims extends JWTPayload {
  realm_access?: { roles: string[] };
  organization?: Record<string, { id: string; groups?: string[] }>;
}

function info(): KeycloakInfo {
  return environment().keycloak.info;
}

async function verifiedAccessToken(user: DevUserName): Promise<AiplaneClaims> {
  const kc = info();
  const { access_token } = await passwordGrant(kc, kc.users[user]);
  rememberSecret(access_token);
  const jwks = createRemoteJWKSet(new URL(kc.jwksUri));
  const { payload } = await jwtVerify<AiplaneClaims>(access_token, jwks, {
    issuer: kc.issuer,
    audience: kc.audience,
  });
  return payload;
}

async function clientToken(client: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await fetch(info().tokenEndpoint, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }),
  });
  assert.equal(res.status, 200, `client_credentials for ${client.clientId}`);
  const { access_token } = (await res.json()) as { access_token: string };
  rememberSecret(access_token);
  return access_token;
}

async function adminGet(token: string, path: string): Promise<Response> {
  const kc = info();
  return fetch(`${kc.url}/admin/realms/${kc.realm}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

describe('local Keycloak (real server, realm aiplane)', function () {
  it('has a realm with organizations enabled', async function () {
    const kc = info();
    const realm = await new KeycloakAdminApi(kc.url, kc.admin).get<{
      organizationsEnabled: boolean;
    }>(`/${kc.realm}`);
    assert.equal(realm.organizationsEnabled, true);
  });

  it("issues the admin an access token that verifies against the realm's JWKS and carries aud aiplane-api, the realm roles and the acme organization id", async function () {
    const claims = await verifiedAccessToken('admin');
    assert.equal(claims.sub, info().users.admin.id);
    assert.ok(
      Array.isArray(claims.aud) ? claims.aud.includes('aiplane-api') : claims.aud === 'aiplane-api',
    );
    for (const role of [
      'platform-admin',
      'can_access_api',
      'can_manage_models',
      'can_edit_config',
    ]) {
      assert.ok(claims.realm_access?.roles.includes(role), `realm role ${role}`);
    }
    // Its permissions are realm roles (everywhere), none through acme's groups.
    assert.deepEqual(claims.organization, { acme: { id: info().organization.id, groups: [] } });
  });

  it('issues the member a token with can_access_api through acme’s group (not a realm role) and without platform-admin', async function () {
    const claims = await verifiedAccessToken('member');
    assert.ok(!claims.realm_access?.roles.includes('can_access_api'));
    assert.ok(!claims.realm_access?.roles.includes('platform-admin'));
    assert.deepEqual(claims.organization, {
      acme: { id: info().organization.id, groups: ['/can_access_api'] },
    });
  });

  it('issues the outsider a token in acme without can_access_api, and nobody one without an organization', async function () {
    const outsider = await verifiedAccessToken('outsider');
    assert.ok(!outsider.realm_access?.roles.includes('can_access_api'));
    assert.deepEqual(outsider.organization, { acme: { id: info().organization.id, groups: [] } });
    const nobody = await verifiedAccessToken('nobody');
    assert.ok(nobody.realm_access?.roles.includes('can_access_api'));
    // The group membership mapper writes an empty claim for a user in no organization.
    assert.deepEqual(nobody.organization ?? {}, {});
  });

  it('lets the operator client list organizations with its client credentials', async function () {
    // By exact name: a plain listing answers one page (10 by default), and the suites before
    // this one leave the organizations of their tenants in the realm.
    const res = await adminGet(
      await clientToken(info().clients.operator),
      '/organizations?search=acme&exact=true',
    );
    assert.equal(res.status, 200);
    const orgs = (await res.json()) as { id: string; alias: string }[];
    assert.deepEqual(
      orgs.map((o) => [o.id, o.alias]),
      [[info().organization.id, 'acme']],
    );
  });

  it("lets the api client read a user's realm role mappings, organizations and groups in each, but not create organizations", async function () {
    const token = await clientToken(info().clients.api);
    const member = info().users.member.id;
    const roles = await adminGet(token, `/users/${member}/role-mappings/realm`);
    assert.equal(roles.status, 200);
    const names = ((await roles.json()) as { name: string }[]).map((r) => r.name);
    assert.ok(names.includes('default-roles-aiplane'), names.join());
    const groups = await adminGet(
      token,
      `/organizations/${info().organization.id}/members/${member}/groups`,
    );
    assert.equal(groups.status, 200);
    assert.deepEqual(
      ((await groups.json()) as { path: string }[]).map((g) => g.path),
      ['/can_access_api'],
    );
    const orgs = await adminGet(token, `/organizations/members/${member}/organizations`);
    assert.equal(orgs.status, 200);
    assert.deepEqual(
      ((await orgs.json()) as { id: string }[]).map((o) => o.id),
      [info().organization.id],
    );
    const kc = info();
    const create = await fetch(`${kc.url}/admin/realms/${kc.realm}/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'not-allowed', alias: 'not-allowed' }),
    });
    assert.equal(create.status, 403);
  });

  it('requires PKCE S256 from the portal and accepts loopback redirect URIs on any port only', async function () {
    const kc = info();
    const authorize = (redirectUri: string, pkce: boolean) => {
      const q = new URLSearchParams({
        client_id: kc.clients.portal.clientId,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: redirectUri,
      });
      if (pkce) {
        q.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
        q.set('code_challenge_method', 'S256');
      }
      return fetch(`${kc.issuer}/protocol/openid-connect/auth?${q.toString()}`, {
        redirect: 'manual',
      });
    };
    assert.equal((await authorize('http://127.0.0.1:5173/callback', true)).status, 200);
    assert.equal((await authorize('http://localhost:3000/callback', true)).status, 200);
    assert.equal((await authorize('http://evil.example/callback', true)).status, 400);
    const noPkce = await authorize('http://127.0.0.1:5173/callback', false);
    assert.equal(noPkce.status, 302);
    assert.match(noPkce.headers.get('location') ?? '', /error=invalid_request/);
  });

  it('runs the bootstrap a second time without writing anything and answers the same ids', async function () {
    const kc = info();
    const options = {
      url: kc.url,
      admin: kc.admin,
      passwords: Object.fromEntries(DEV_USERS.map((u) => [u, kc.users[u].password])) as Record<
        DevUserName,
        string
      >,
    };
    // Earlier suites may have changed roles or users; the first run converges them back.
    await bootstrapKeycloak(options);
    const writes: string[] = [];
    const again = await bootstrapKeycloak({
      ...options,
      onWrite: (method, path) => writes.push(`${method} ${path}`),
    });
    assert.deepEqual(writes, []);
    assert.deepEqual(again, kc);

    const admin = new KeycloakAdminApi(kc.url, kc.admin);
    const r = `/${kc.realm}`;
    const roles = (await admin.get<{ name: string }[]>(`${r}/roles?max=1000`)).map((x) => x.name);
    assert.equal(new Set(roles).size, roles.length);
    const users = await admin.get<{ username: string }[]>(`${r}/users?max=1000`);
    for (const u of DEV_USERS) {
      assert.equal(users.filter((x) => x.username === u).length, 1, `one user ${u}`);
    }
    const orgs = await admin.get<unknown[]>(`${r}/organizations?search=acme&exact=true`);
    assert.equal(orgs.length, 1);
    for (const clientId of ['aiplane-portal', 'aiplane-api', 'aiplane-operator']) {
      const found = await admin.get<unknown[]>(`${r}/clients?clientId=${clientId}`);
      assert.equal(found.length, 1, `one client ${clientId}`);
    }
  });
});
