import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { KeycloakOrganizations } from '@aiplane/operator';
import { KeycloakAdminClient } from '@aiplane/lib';
import { environment } from './harness.js';

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

describe('Keycloak organizations as the operator finds them (real Keycloak, 150 organizations)', function () {
  this.timeout(180_000);
  const kc = () => environment().keycloak.info;
  const client = () => ({
    url: kc().url,
    realm: kc().realm,
    clientId: kc().clients.operator.clientId,
    clientSecret: kc().clients.operator.clientSecret,
    // Two cores shared by many suites: Keycloak may answer slowly, which is not under test.
    timeoutMs: 30_000,
  });
  let admin: KeycloakAdminClient;
  let organizations: KeycloakOrganizations;
  /** alias → id of every organization this suite created (and removes). */
  const created = new Map<string, string>();
  // `m…` is the tenant looked up; 148 names contain it and sort before it (`a-m…-NNN`), so a
  // substring search that stops after 100 results never reaches it.
  const target = `m${randomBytes(4).toString('hex')}`;
  const others = [
    `${target}-corp`,
    ...Array.from({ length: 148 }, (_, i) => `a-${target}-${String(i).padStart(3, '0')}`),
  ];
  const createOrganization = async (alias: string) => {
    const res = await admin.request('POST', '/organizations', {
      name: alias,
      alias,
      enabled: true,
    });
    await res.body?.cancel();
    assert.equal(res.status, 201, `creating ${alias}`);
    created.set(alias, res.headers.get('location')?.split('/').pop() ?? '');
  };

  before(async function () {
    admin = new KeycloakAdminClient(client());
    organizations = new KeycloakOrganizations(client());
    await admin.get('/organizations?max=1'); // one token first, shared by the parallel requests
    // In order of creation: the others first, the target last.
    await inParallel(others, 8, createOrganization);
    await createOrganization(target);
  });

  after(async function () {
    await inParallel([...created.values()], 8, async (id) => {
      const res = await admin.request('DELETE', `/organizations/${id}`);
      await res.body?.cancel();
    });
  });

  it('finds exactly the organization with the alias, not one whose name merely contains it, past the first 100', async function () {
    const found = await organizations.findByAlias(target);
    assert.equal(found?.alias, target);
    assert.equal(found?.id, created.get(target));
    const corp = await organizations.findByAlias(`${target}-corp`);
    assert.equal(corp?.id, created.get(`${target}-corp`));
  });

  it('finds an organization created after the first 100', async function () {
    const late = others[130] ?? '';
    const found = await organizations.findByAlias(late);
    assert.equal(found?.id, created.get(late));
  });

  it('answers nothing for an alias no organization has, though many names contain it', async function () {
    assert.equal(await organizations.findByAlias(target.slice(0, -1)), undefined);
    assert.equal(await organizations.findByAlias(`a-${target}`), undefined);
  });

  it('finds an organization by its alias after its name was changed in Keycloak', async function () {
    const alias = others[5] ?? '';
    const id = created.get(alias) ?? '';
    const res = await admin.request('PUT', `/organizations/${id}`, {
      id,
      name: `renamed-${alias}`,
      alias,
      enabled: true,
    });
    await res.body?.cancel();
    assert.equal(res.status, 204);
    const found = await organizations.findByAlias(alias);
    assert.equal(found?.id, id);
  });

  it('answers nothing at once for an organization deleted a moment ago', async function () {
    const alias = others[140] ?? '';
    assert.ok(await organizations.findByAlias(alias), 'found before the deletion');
    await organizations.delete(created.get(alias) ?? '');
    created.delete(alias);
    assert.equal(await organizations.findByAlias(alias), undefined);
  });
});
