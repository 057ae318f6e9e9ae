import assert from 'node:assert/strict';
import { waitFor } from '@aiplane/hack';
import {
  assertCode,
  call,
  keycloak,
  ORG_SCOPE,
  startTestApi,
  tokenFor,
  type TestApi,
} from './api-helpers.js';
import { caller, setMembership } from './fixtures/index.js';
import { kcAdmin, setPermissionsIn } from './keycloak-admin.js';
import { uniqueName } from './kube-helpers.js';
import { rememberSecret } from './secrets.js';

interface Me {
  organization_id: string | null;
  permissions: string[];
  organizations: { id: string; alias: string; permissions: string[] }[];
}

/**
 * Permissions are held per organization, through Keycloak organization groups (docs/adr/0022):
 * the member of two organizations holds can_edit_config in one and not in the other, by token
 * and by API key, and losing can_access_api in one shuts them out of that one only.
 */
describe('organization-scoped permissions (Keycloak organization groups)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acme: string;
  let beta = '';
  const member = () => keycloak().users.member.id;
  const patchConfig = { retrieval_k: 7 };

  before(async function () {
    api = await startTestApi('org-permissions', { AIPLANE_IDP_ACCESS_CACHE_SECONDS: '1' });
    acme = keycloak().organization.id;
    const alias = uniqueName('perm').slice(0, 30);
    const created = await kcAdmin('/organizations', {
      method: 'POST',
      body: { name: alias, alias, enabled: true },
    });
    assert.equal(created.status, 201, await created.text());
    beta = created.headers.get('location')?.split('/').pop() ?? '';
    await setMembership(beta, 'member', true);
    await setPermissionsIn(beta, member(), ['can_access_api', 'can_edit_config']);
  });

  after(async function () {
    if (beta) await kcAdmin(`/organizations/${beta}`, { method: 'DELETE' });
    await api?.close();
  });

  it('carries each organization’s permissions in the token and answers them in /v1/me', async function () {
    const me = async (org: string) =>
      (await caller(api.url, 'member', org)('GET', '/v1/me')).json() as Me;
    const inBeta = await me(beta);
    assert.equal(inBeta.organization_id, beta);
    assert.deepEqual(inBeta.permissions, ['can_access_api', 'can_edit_config']);
    assert.deepEqual(inBeta.organizations.find((o) => o.id === acme)?.permissions, [
      'can_access_api',
    ]);
    assert.deepEqual((await me(acme)).permissions, ['can_access_api']);
  });

  it('lets the member change the configuration in the organization where they hold can_edit_config, and refuses it in the other', async function () {
    const inBeta = await caller(api.url, 'member', beta)('PATCH', '/v1/config', patchConfig);
    assert.equal(inBeta.status, 200, inBeta.text);
    const inAcme = await caller(api.url, 'member', acme)('PATCH', '/v1/config', patchConfig);
    assertCode(inAcme, 403, 'permission_denied');
    // Branding writes and translation updates follow the same permission.
    assertCode(
      await caller(api.url, 'member', acme)('POST', '/v1/branding/theme/reset'),
      403,
      'permission_denied',
    );
    const translated = await caller(api.url, 'member', beta)('PATCH', '/v1/translations/de', {
      common: { save: 'Sichern' },
    });
    assert.equal(translated.status, 200, translated.text);
  });

  it('acts with the key owner’s current permissions in the organization the key names', async function () {
    const created = await call(`${api.url}/v1/api-keys`, {
      method: 'POST',
      body: { name: 'per-organization' },
      headers: { authorization: `Bearer ${await tokenFor('member', ORG_SCOPE)}` },
    });
    assert.equal(created.status, 201, created.text);
    const key = (created.json() as { key: string }).key;
    rememberSecret(key);
    const asKey = (org: string) => (method: string, path: string, body?: unknown) =>
      call(`${api.url}${path}`, {
        method,
        body,
        headers: { 'x-api-key': key, 'x-aiplane-organization': org },
      });
    assert.equal((await asKey(beta)('PATCH', '/v1/config', patchConfig)).status, 200);
    assertCode(await asKey(acme)('PATCH', '/v1/config', patchConfig), 403, 'permission_denied');
    // Granted in acme now: the key follows within the identity cache (1 s here).
    await setPermissionsIn(acme, member(), ['can_access_api', 'can_edit_config']);
    try {
      await waitFor(
        'the key to hold can_edit_config in acme',
        async () => (await asKey(acme)('PATCH', '/v1/config', patchConfig)).status === 200,
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    } finally {
      await setPermissionsIn(acme, member(), ['can_access_api']);
    }
  });

  it('shuts a member out of the one organization where they lost can_access_api (403 on every router there), not the other', async function () {
    await setPermissionsIn(beta, member(), ['can_edit_config']);
    try {
      const inBeta = caller(api.url, 'member', beta);
      for (const path of ['/v1/config', '/v1/translations', '/v1/branding/theme', '/v1/agents']) {
        assertCode(await inBeta('GET', path), 403, 'permission_denied');
      }
      // can_edit_config alone does not open the routers.
      assertCode(await inBeta('PATCH', '/v1/config', patchConfig), 403, 'permission_denied');
      const inAcme = await caller(api.url, 'member', acme)('GET', '/v1/config');
      assert.equal(inAcme.status, 200, inAcme.text);
    } finally {
      await setPermissionsIn(beta, member(), ['can_access_api', 'can_edit_config']);
    }
  });
});
