import assert from 'node:assert/strict';
import { waitFor } from '@aiplane/hack';
import {
  assertValidationFailed,
  call,
  keycloak,
  startTestApi,
  tokenFor,
  type TestApi,
} from './api-helpers.js';
import {
  masterRealmToken,
  setPermissionsIn,
  setUserEnabled,
  wrongAudienceToken,
} from './keycloak-admin.js';
import { rememberSecret } from './secrets.js';

type Me = {
  user_id: string;
  authenticated_via: string;
  roles: string[];
  organization_id: string | null;
  platform_admin: boolean;
};
type ErrorBody = {
  error: { code?: string; message: string; fields?: { field: string; message: string }[] };
};

describe('API authentication and access (real Keycloak, real PostgreSQL)', function () {
  let api: TestApi;
  const me = (headers: Record<string, string>) => call(`${api.url}/v1/me`, { headers });
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

  async function createKey(
    token: string,
    name = 'test key',
  ): Promise<{ id: string; key: string; prefix: string }> {
    const r = await call(`${api.url}/v1/api-keys`, {
      method: 'POST',
      headers: bearer(token),
      body: { name },
    });
    assert.equal(r.status, 201, r.text);
    const body = r.json() as { id: string; key: string; prefix: string };
    rememberSecret(body.key);
    return body;
  }

  before(async function () {
    // A short access cache so the role-removal test runs in seconds; the default is 30 s.
    api = await startTestApi('api-auth', { AIPLANE_IDP_ACCESS_CACHE_SECONDS: '2' });
  });
  after(async function () {
    await api?.close();
  });

  describe('JWTs', function () {
    it('accepts a real Keycloak token and reads user, roles and organization from it', async function () {
      const r = await me(bearer(await tokenFor('admin')));
      assert.equal(r.status, 200, r.text);
      const body = r.json() as Me;
      assert.equal(body.user_id, keycloak().users.admin.id);
      assert.equal(body.authenticated_via, 'jwt');
      assert.equal(body.platform_admin, true);
      assert.ok(body.roles.includes('can_access_api'));
      assert.equal(body.organization_id, keycloak().organization.id);
    });

    it('answers 401 authentication_required with a Bearer challenge when nothing is sent', async function () {
      const r = await me({});
      assert.equal(r.status, 401);
      assert.equal((r.json() as ErrorBody).error.code, 'authentication_required');
      assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="aiplane"');
    });

    const refused: [string, () => Promise<string>, RegExp][] = [
      [
        'a tampered token',
        async () => {
          const [h, p, s] = (await tokenFor('member')).split('.');
          const claims = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<
            string,
            unknown
          >;
          claims.realm_access = { roles: ['platform-admin', 'can_access_api'] };
          return `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
        },
        /signature/,
      ],
      ['a token from another issuer (the master realm)', masterRealmToken, /issuer|unknown key/],
      [
        'a token for another audience',
        async () =>
          wrongAudienceToken(keycloak().users.member.username, keycloak().users.member.password),
        /audience/,
      ],
      [
        'an alg none token carrying real claims',
        async () => {
          const p = (await tokenFor('member')).split('.')[1];
          return `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
        },
        /algorithm/,
      ],
      ['a malformed token', () => Promise.resolve('not.a.jwt'), /malformed/],
    ];
    for (const [what, make, message] of refused) {
      it(`answers 401 invalid_token with a challenge for ${what}`, async function () {
        const r = await me(bearer(await make()));
        assert.equal(r.status, 401, r.text);
        const body = r.json() as ErrorBody;
        assert.equal(body.error.code, 'invalid_token');
        assert.match(body.error.message, message);
        assert.match(
          r.headers.get('www-authenticate') ?? '',
          /^Bearer realm="aiplane", error="invalid_token"/,
        );
      });
    }

    it('answers 403 permission_denied to a user without can_access_api, on every router', async function () {
      const t = await tokenFor('outsider');
      for (const path of ['/v1/me', '/v1/api-keys', '/v1/anything']) {
        const r = await call(`${api.url}${path}`, { headers: bearer(t) });
        assert.equal(r.status, 403, path);
        assert.equal((r.json() as ErrorBody).error.code, 'permission_denied');
      }
    });

    it('answers 403 permission_denied without can_access_api on every route the app mounts (walked from its route table)', async function () {
      // Public by design: the probes, the API documentation (docs/adr/0021) and the portal's page. Anything else
      // mounted without the guard fails here, however it is added (the WebSocket /v1/stt:
      // it/api-websocket.test.ts).
      const PUBLIC = new Set([
        'GET /healthz',
        'GET /readyz',
        'GET /openapi.json',
        'GET /docs',
        'GET /scalar',
        // The portal's page and its sign-in settings (docs/adr/0037): public, the app signs in.
        'GET /portal/config.json',
        'GET /portal/',
      ]);
      const routes = api.routes.filter((r) => !PUBLIC.has(`${r.method} ${r.path}`));
      assert.ok(
        routes.length >= 20,
        `only ${routes.length} routes found: ${JSON.stringify(routes)}`,
      );
      assert.ok(
        routes.some((r) => r.method === 'PATCH' && r.path === '/v1/translations/:language'),
      );
      const t = await tokenFor('outsider');
      const sample = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
      for (const r of routes) {
        const path = r.path.replace(/:[A-Za-z_]+/g, sample);
        const method = r.method === 'ALL' ? 'POST' : r.method;
        const reply = await call(`${api.url}${path}`, {
          method,
          headers: bearer(t),
          ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : {}),
        });
        assert.equal(reply.status, 403, `${r.method} ${r.path}: ${reply.text}`);
        if (r.path.startsWith('/anthropic/')) {
          // The vendor-compatible mount answers in the vendor's shape (docs/adr/0024).
          const body = reply.json() as { type: string; error: { type: string } };
          assert.deepEqual([body.type, body.error.type], ['error', 'permission_error'], r.path);
        } else {
          assert.equal((reply.json() as ErrorBody).error.code, 'permission_denied', r.path);
        }
      }
    });
  });

  describe('organization context', function () {
    it('lets a platform admin act in any organization named in X-Aiplane-Organization', async function () {
      const other = '6f1c2d3e-4b5a-4978-8a6b-0c1d2e3f4a5b';
      const r = await me({ ...bearer(await tokenFor('admin')), 'x-aiplane-organization': other });
      assert.equal((r.json() as Me).organization_id, other);
    });

    it('answers 400 organization_invalid when a platform admin names a foreign organization by something other than its id', async function () {
      const r = await me({
        ...bearer(await tokenFor('admin')),
        'x-aiplane-organization': 'not-an-id',
      });
      assert.equal(r.status, 400);
      assert.equal((r.json() as ErrorBody).error.code, 'organization_invalid');
    });

    it('refuses a member naming an organization that is not theirs', async function () {
      const r = await me({
        ...bearer(await tokenFor('member')),
        'x-aiplane-organization': 'another-org-id',
      });
      assert.equal(r.status, 403);
      assert.equal((r.json() as ErrorBody).error.code, 'organization_access_denied');
    });

    it('puts a member in the organization of their token', async function () {
      const r = await me(bearer(await tokenFor('member')));
      assert.equal((r.json() as Me).organization_id, keycloak().organization.id);
    });
  });

  describe('API keys', function () {
    it('creates a key shown once, then lists it by prefix and name without the secret', async function () {
      const t = await tokenFor('member');
      const created = await createKey(t, 'ci key');
      assert.match(created.key, /^sk-svc-v1-[A-Za-z0-9_-]{43}$/);
      assert.ok(created.key.startsWith(created.prefix));
      const list = await call(`${api.url}/v1/api-keys`, { headers: bearer(t) });
      assert.equal(list.status, 200);
      assert.ok(!list.text.includes(created.key), 'the listing leaks the key');
      const entry = (list.json() as { api_keys: Record<string, unknown>[] }).api_keys.find(
        (k) => k.id === created.id,
      );
      assert.deepEqual(Object.keys(entry ?? {}).sort(), [
        'created_at',
        'id',
        'last_used_at',
        'name',
        'prefix',
      ]);
      assert.equal(entry?.name, 'ci key');
    });

    it('authenticates the key in X-Api-Key and as a bearer token, equivalently', async function () {
      const created = await createKey(await tokenFor('member'));
      const viaHeader = await me({ 'x-api-key': created.key });
      const viaBearer = await me(bearer(created.key));
      assert.equal(viaHeader.status, 200, viaHeader.text);
      assert.equal(viaHeader.text, viaBearer.text);
      const body = viaHeader.json() as Me;
      assert.equal(body.authenticated_via, 'api_key');
      assert.equal(body.user_id, keycloak().users.member.id);
      assert.ok(!viaHeader.text.includes(created.key));
    });

    it('records last use on the key that was used, and only on it', async function () {
      const t = await tokenFor('member');
      const used = await createKey(t, 'used');
      const idle = await createKey(t, 'idle');
      assert.equal((await me({ 'x-api-key': used.key })).status, 200);
      await waitFor('last_used_at to be recorded', async () => {
        const keys = (
          (await call(`${api.url}/v1/api-keys`, { headers: bearer(t) })).json() as {
            api_keys: { id: string; last_used_at: string | null }[];
          }
        ).api_keys;
        return keys.find((k) => k.id === used.id)?.last_used_at != null;
      });
      const keys = (
        (await call(`${api.url}/v1/api-keys`, { headers: bearer(t) })).json() as {
          api_keys: { id: string; last_used_at: string | null }[];
        }
      ).api_keys;
      assert.equal(
        keys.find((k) => k.id === idle.id)?.last_used_at,
        null,
        'an unused key got a last use',
      );
    });

    it('lets X-Api-Key win when both headers are present', async function () {
      const created = await createKey(await tokenFor('member'));
      const good = await me({
        'x-api-key': created.key,
        authorization: 'Bearer not-a-valid-token',
      });
      assert.equal(good.status, 200);
      const bad = await me({ 'x-api-key': 'sk-svc-v1-bad', ...bearer(await tokenFor('member')) });
      assert.equal(bad.status, 401);
      assert.equal((bad.json() as ErrorBody).error.code, 'invalid_api_key');
    });

    const invalid: [string, string][] = [
      ['a malformed key', 'sk-svc-v1-short'],
      ['an unknown well-formed key', `sk-svc-v1-${'A'.repeat(43)}`],
    ];
    for (const [what, key] of invalid) {
      it(`answers 401 invalid_api_key for ${what}, in either header`, async function () {
        for (const headers of [{ 'x-api-key': key }, bearer(key)]) {
          const r = await me(headers);
          assert.equal(r.status, 401);
          assert.equal((r.json() as ErrorBody).error.code, 'invalid_api_key');
        }
      });
    }

    it('stops accepting a revoked key, and a second revoke answers 404', async function () {
      const t = await tokenFor('member');
      const created = await createKey(t);
      assert.equal((await me({ 'x-api-key': created.key })).status, 200);
      const del = await call(`${api.url}/v1/api-keys/${created.id}`, {
        method: 'DELETE',
        headers: bearer(t),
      });
      assert.equal(del.status, 204);
      assert.equal((await me({ 'x-api-key': created.key })).status, 401);
      const again = await call(`${api.url}/v1/api-keys/${created.id}`, {
        method: 'DELETE',
        headers: bearer(t),
      });
      assert.equal(again.status, 404);
      assert.equal((again.json() as ErrorBody).error.code, 'api_key_not_found');
    });

    it('does not let one user revoke or list another user’s key', async function () {
      const created = await createKey(await tokenFor('member'));
      const other = await tokenFor('admin');
      const del = await call(`${api.url}/v1/api-keys/${created.id}`, {
        method: 'DELETE',
        headers: bearer(other),
      });
      assert.equal(del.status, 404);
      const list = await call(`${api.url}/v1/api-keys`, { headers: bearer(other) });
      assert.ok(!list.text.includes(created.id));
      assert.equal((await me({ 'x-api-key': created.key })).status, 200);
    });

    it('refuses to create a key with an API key (403 interactive_login_required)', async function () {
      const created = await createKey(await tokenFor('member'));
      const r = await call(`${api.url}/v1/api-keys`, {
        method: 'POST',
        headers: { 'x-api-key': created.key },
        body: { name: 'x' },
      });
      assert.equal(r.status, 403);
      assert.equal((r.json() as ErrorBody).error.code, 'interactive_login_required');
    });

    const badBodies: [string, unknown, string][] = [
      ['no name', {}, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['a name over 200 characters', { name: 'x'.repeat(201) }, 'name'],
      ['an unknown field', { name: 'k', scope: 'all' }, 'scope'],
    ];
    for (const [what, body, field] of badBodies) {
      it(`answers 422 with field errors and no code for ${what}`, async function () {
        const r = await call(`${api.url}/v1/api-keys`, {
          method: 'POST',
          headers: bearer(await tokenFor('member')),
          body,
        });
        assertValidationFailed(r, field);
      });
    }

    it('answers 415 unsupported_media_type for a JSON body in an unsupported charset', async function () {
      const res = await fetch(`${api.url}/v1/api-keys`, {
        method: 'POST',
        headers: {
          ...bearer(await tokenFor('member')),
          'content-type': 'application/json; charset=latin1',
        },
        body: '{"name":"x"}',
      });
      assert.equal(res.status, 415);
      assert.equal(((await res.json()) as ErrorBody).error.code, 'unsupported_media_type');
    });

    it('answers 422 for a body that is not JSON', async function () {
      const res = await fetch(`${api.url}/v1/api-keys`, {
        method: 'POST',
        headers: { ...bearer(await tokenFor('member')), 'content-type': 'application/json' },
        body: '{"name": ',
      });
      assert.equal(res.status, 422);
    });

    it('acts with the owner’s current permissions: can_access_api removed in Keycloak (the organization group) stops the key within the cache time', async function () {
      const member = keycloak().users.member;
      const acme = keycloak().organization.id;
      const created = await createKey(await tokenFor('member'));
      assert.equal((await me({ 'x-api-key': created.key })).status, 200);
      await setPermissionsIn(acme, member.id, []);
      try {
        await waitFor(
          'the key to lose can_access_api',
          async () => (await me({ 'x-api-key': created.key })).status === 403,
          {
            timeoutMs: 60_000,
            intervalMs: 100,
          },
        );
      } finally {
        await setPermissionsIn(acme, member.id, ['can_access_api']);
      }
      await waitFor(
        'the key to work again',
        async () => (await me({ 'x-api-key': created.key })).status === 200,
        {
          timeoutMs: 60_000,
          intervalMs: 100,
        },
      );
    });

    it('refuses the key of a disabled user', async function () {
      const nobody = keycloak().users.nobody;
      const created = await createKey(await tokenFor('nobody'));
      await setUserEnabled(nobody.id, false);
      try {
        await waitFor(
          'the key to be refused',
          async () => (await me({ 'x-api-key': created.key })).status === 401,
          {
            timeoutMs: 60_000,
            intervalMs: 100,
          },
        );
      } finally {
        await setUserEnabled(nobody.id, true);
      }
    });
  });
});
