import assert from 'node:assert/strict';
import pg from 'pg';
import { CoreV1Api } from '@kubernetes/client-node';
import { waitFor, type ManagedProcess } from '@aiplane/hack';
import {
  assertValidationFailed,
  call,
  startTestApi,
  tokenFor,
  type TestApi,
} from './api-helpers.js';
import { kubeConfig } from './harness.js';
import { kcAdmin } from './keycloak-admin.js';
import { uniqueName } from './kube-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import {
  adminCall,
  awaitTenant,
  awaitTenantGone,
  databaseSecret,
  deleteStrayTenants,
  namespaceExists,
  organizationsWithAlias,
  superuserQuery,
  type TenantRecordBody,
} from './tenant-helpers.js';

type ErrorBody = { error: { code?: string; message: string; fields?: { field: string }[] } };
const slugOf = (prefix: string) => uniqueName(prefix).slice(0, 40);

describe('tenant lifecycle end to end (API, operator, kube-apiserver, Keycloak, PostgreSQL)', function () {
  let api: TestApi;
  let operator: ManagedProcess;
  const tenants = () => `${api.url}/v1/admin/tenants`;
  const create = (body: unknown) => adminCall(tenants(), { method: 'POST', body });

  before(async function () {
    await deleteStrayTenants();
    api = await startTestApi('api-tenants');
    // Degraded lasts from the report to the repair: 10 s (not the helper's 3 s, which the
    // second-precision lastTransitionTime can cut to 2 s) so that polling the API, through its
    // watch cache, sees it on a loaded machine too.
    operator = startOperatorProcess({ AIPLANE_OPERATOR_REPAIR_DELAY_SECONDS: '10' });
  });
  after(async function () {
    await operator?.stop();
    await api?.close();
  });

  /**
   * The reasons of the Events about TenantLifecycle `slug`, once every one of `expected` is
   * there. The operator records Events without waiting for them (after the status write, and
   * after the finalizer goes), so a Ready or gone tenant can be seen before its last Event.
   */
  async function eventReasons(slug: string, expected: string[]): Promise<string[]> {
    let reasons: string[] = [];
    await waitFor(`Events ${expected.join(', ')} about ${slug}`, async () => {
      const events = await kubeConfig()
        .makeApiClient(CoreV1Api)
        .listNamespacedEvent({
          namespace: 'default',
          fieldSelector: `involvedObject.name=${slug}`,
        });
      reasons = events.items.map((e) => e.reason ?? '');
      return expected.every((reason) => reasons.includes(reason));
    }).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; Events seen: ${reasons.join(',')}`);
    });
    return reasons;
  }

  async function provision(slug: string, dedicated: boolean): Promise<TenantRecordBody> {
    const r = await create({
      slug,
      display_name: `Tenant ${slug}`,
      identity: { enabled: true },
      database: { dedicated },
    });
    assert.equal(r.status, 202, r.text);
    const accepted = r.json() as TenantRecordBody;
    assert.match(accepted.id, /^[0-9a-f-]{36}$/);
    assert.equal(accepted.phase, 'Pending');
    assert.equal(accepted.stage, 'Accepted');
    assert.equal(accepted.desired_state, 'present');
    return awaitTenant(api.url, accepted.id, (t) => t.phase === 'Ready', `${slug} to be Ready`);
  }

  it('provisions a tenant without a database: namespace, Keycloak organization, Ready with every condition True', async function () {
    const slug = slugOf('plain');
    const t = await provision(slug, false);
    assert.equal(t.stage, 'Ready');
    assert.equal(t.observed_generation, t.generation);
    assert.deepEqual(t.conditions.map((c) => `${c.type}=${c.status}`).sort(), [
      'DatabaseReady=True',
      'IdentityReady=True',
      'NamespaceReady=True',
      'Ready=True',
    ]);
    assert.equal(t.services.database.enabled, false);
    assert.ok(await namespaceExists(`tenant-${slug}`));
    const orgs = await organizationsWithAlias(slug);
    assert.equal(orgs.length, 1);
    assert.equal(orgs[0]?.id, t.organization_id);
    assert.equal(t.services.identity.organization_id, t.organization_id);
    assert.deepEqual(orgs[0]?.attributes?.['aiplane.io/tenant-uid'], [t.id]);
    await eventReasons(slug, ['NamespaceCreated', 'OrganizationCreated', 'TenantReady']);
  });

  it('provisions a dedicated database whose Secret credentials connect', async function () {
    const slug = slugOf('db');
    const t = await provision(slug, true);
    assert.equal(t.services.database.ready, true);
    assert.equal(t.services.database.secret_name, 'tenant-database');
    const secret = await databaseSecret(slug);
    assert.deepEqual(Object.keys(secret).sort(), [
      'database',
      'host',
      'password',
      'port',
      'uri',
      'username',
    ]);
    assert.equal(t.services.database.name, secret.database);
    const client = new pg.Client({ connectionString: secret.uri });
    await client.connect();
    try {
      await client.query('create table notes (id int)');
      const owner = await client.query<{ owner: string }>(
        'select pg_catalog.pg_get_userbyid(datdba) as owner from pg_database where datname = current_database()',
      );
      assert.equal(owner.rows[0]?.owner, secret.username);
    } finally {
      await client.end();
    }
  });

  it('deletes a tenant: Deleting, then 404, with namespace, organization, database and role gone', async function () {
    const slug = slugOf('del');
    const t = await provision(slug, true);
    const secret = await databaseSecret(slug);
    const del = await adminCall(`${tenants()}/${t.id}`, { method: 'DELETE' });
    assert.equal(del.status, 202, del.text);
    assert.equal((del.json() as TenantRecordBody).phase, 'Deleting');
    assert.equal((del.json() as TenantRecordBody).desired_state, 'absent');
    await awaitTenantGone(api.url, t.id);
    const listed = (await adminCall(`${tenants()}?q=${slug}`)).json() as { tenants: unknown[] };
    assert.deepEqual(listed.tenants, [], 'the deleted tenant is still listed');
    const reasons = await eventReasons(slug, ['DeletionStarted', 'TenantDeleted']);
    const count = (reason: string) => reasons.filter((r) => r === reason).length;
    assert.equal(count('DeletionStarted'), 1, reasons.join(','));
    assert.equal(count('TenantDeleted'), 1, reasons.join(','));
    assert.equal(await namespaceExists(`tenant-${slug}`), false);
    assert.deepEqual(await organizationsWithAlias(slug), []);
    assert.deepEqual(
      await superuserQuery('select 1 from pg_database where datname = $1', [secret.database]),
      [],
    );
    assert.deepEqual(
      await superuserQuery('select 1 from pg_roles where rolname = $1', [secret.username]),
      [],
    );
  });

  it('deletes a tenant whose provisioning is still running', async function () {
    const slug = slugOf('early');
    const r = await create({ slug, identity: { enabled: true }, database: { dedicated: true } });
    const id = (r.json() as TenantRecordBody).id;
    assert.equal((await adminCall(`${tenants()}/${id}`, { method: 'DELETE' })).status, 202);
    await awaitTenantGone(api.url, id);
    assert.equal(await namespaceExists(`tenant-${slug}`), false);
    assert.deepEqual(await organizationsWithAlias(slug), []);
    assert.deepEqual(
      await superuserQuery('select 1 from pg_roles where rolname like $1', [
        `tenant_${slug.replace(/-/g, '_')}%`,
      ]),
      [],
    );
  });

  it('goes Degraded when its organization is removed behind its back, then repairs it', async function () {
    const slug = slugOf('degr');
    const t = await provision(slug, false);
    const del = await kcAdmin(`/organizations/${t.organization_id}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    assert.equal((await kcAdmin(`/organizations/${t.organization_id}`)).status, 404);
    const degraded = await awaitTenant(
      api.url,
      t.id,
      (x) => x.phase === 'Degraded',
      `${slug} to be Degraded`,
    );
    const identity = degraded.conditions.find((c) => c.type === 'IdentityReady');
    assert.equal(identity?.status, 'False');
    assert.equal(identity?.reason, 'OrganizationMissing');
    assert.match(identity?.message ?? '', /removed outside aiplane; it will be recreated/);
    const repaired = await awaitTenant(
      api.url,
      t.id,
      (x) => x.phase === 'Ready',
      `${slug} to be repaired`,
    );
    assert.notEqual(repaired.organization_id, t.organization_id);
    assert.equal((await organizationsWithAlias(slug)).length, 1);
  });

  describe('crash safety', function () {
    for (const stage of ['Namespace', 'Identity', 'Database'] as const) {
      it(`finishes the job with nothing duplicated after the operator is SIGKILLed right after the ${stage} stage`, async function () {
        // Two operators start from source here, each in seconds on a busy machine (60 s seen).
        this.timeout(240_000);
        const slug = slugOf(`crash-${stage.toLowerCase()}`);
        await operator.stop();
        const crashing = startOperatorProcess({ AIPLANE_OPERATOR_CRASH_AFTER: `${stage}:${slug}` });
        const r = await create({
          slug,
          identity: { enabled: true },
          database: { dedicated: true },
        });
        const id = (r.json() as TenantRecordBody).id;
        await crashing.exited;
        assert.equal(
          crashing.child.signalCode,
          'SIGKILL',
          'the operator did not crash at the fault point',
        );
        operator = startOperatorProcess();
        const t = await awaitTenant(
          api.url,
          id,
          (x) => x.phase === 'Ready',
          `${slug} to be Ready after the restart`,
        );
        const orgs = await organizationsWithAlias(slug);
        assert.equal(orgs.length, 1, 'exactly one organization');
        assert.equal(orgs[0]?.id, t.organization_id);
        const secret = await databaseSecret(slug);
        assert.equal(
          (await superuserQuery('select 1 from pg_database where datname = $1', [secret.database]))
            .length,
          1,
        );
        assert.equal(
          (
            await superuserQuery(
              "select 1 from pg_roles where rolname like 'tenant\\_%' and rolname = $1",
              [secret.username],
            )
          ).length,
          1,
        );
        const client = new pg.Client({ connectionString: secret.uri });
        await client.connect();
        await client.end();
      });
    }
  });

  describe('the registry', function () {
    it('searches by slug, display name and organization id, filters by phase, and pages', async function () {
      const a = await provision(slugOf('reg-a'), false);
      const list = async (q: string) =>
        (await adminCall(`${tenants()}?${q}`)).json() as {
          tenants: TenantRecordBody[];
          count: number;
          total: number;
          next_offset: number | null;
        };
      assert.ok((await list(`q=${a.slug}`)).tenants.some((x) => x.id === a.id));
      assert.ok(
        (await list(`q=${encodeURIComponent(`Tenant ${a.slug}`.toUpperCase())}`)).tenants.some(
          (x) => x.id === a.id,
        ),
        'display name search is case-insensitive',
      );
      assert.ok((await list(`q=${a.organization_id ?? 'x'}`)).tenants.some((x) => x.id === a.id));
      assert.equal((await list(`q=${a.slug}&phase=Provisioning`)).tenants.length, 0);
      assert.equal((await list(`q=${a.slug}&phase=Ready`)).tenants.length, 1);
      const page1 = await list('limit=1');
      assert.equal(page1.count, 1);
      assert.ok(page1.total >= 2);
      assert.equal(page1.next_offset, 1);
      const page2 = await list('limit=1&offset=1');
      assert.notEqual(page2.tenants[0]?.id, page1.tenants[0]?.id);
    });
  });

  describe('refusals', function () {
    it('answers 409 tenant_slug_conflict for a taken slug', async function () {
      const slug = slugOf('dup');
      assert.equal((await create({ slug, identity: { enabled: true } })).status, 202);
      const again = await create({ slug, identity: { enabled: true } });
      assert.equal(again.status, 409);
      assert.equal((again.json() as ErrorBody).error.code, 'tenant_slug_conflict');
    });

    const bad: [string, unknown, string][] = [
      ['an uppercase slug', { slug: 'Acme', identity: { enabled: true } }, 'slug'],
      ['a slug over 56 characters', { slug: 'a'.repeat(57), identity: { enabled: true } }, 'slug'],
      ['no slug', { identity: { enabled: true } }, 'slug'],
      ['identity disabled', { slug: 'ok-slug', identity: { enabled: false } }, 'identity.enabled'],
      ['no identity', { slug: 'ok-slug' }, 'identity'],
      [
        'a non-boolean database switch',
        { slug: 'ok-slug', identity: { enabled: true }, database: { dedicated: 'yes' } },
        'database.dedicated',
      ],
      [
        'an unknown field',
        { slug: 'ok-slug', identity: { enabled: true }, region: 'eu' },
        'region',
      ],
      [
        'an empty display name',
        { slug: 'ok-slug', display_name: '', identity: { enabled: true } },
        'display_name',
      ],
    ];
    for (const [what, body, field] of bad) {
      it(`answers 422 naming ${field} for ${what}`, async function () {
        const r = await create(body);
        assertValidationFailed(r, field);
      });
    }

    it('answers 422 for an unknown phase filter', async function () {
      assert.equal((await adminCall(`${tenants()}?phase=Bogus`)).status, 422);
    });

    it('answers 403 to a member on every tenant route', async function () {
      const h = { authorization: `Bearer ${await tokenFor('member')}` };
      for (const [method, path] of [
        ['GET', ''],
        ['POST', ''],
        ['GET', '/x'],
        ['DELETE', '/x'],
      ] as const) {
        const r = await call(`${tenants()}${path}`, {
          method,
          headers: h,
          ...(method === 'POST' ? { body: {} } : {}),
        });
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.equal((r.json() as ErrorBody).error.code, 'permission_denied');
      }
    });

    it('answers 404 tenant_not_found for an unknown or malformed id', async function () {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        for (const method of ['GET', 'DELETE']) {
          const r = await adminCall(`${tenants()}/${id}`, { method });
          assert.equal(r.status, 404, `${method} ${id}`);
          assert.equal((r.json() as ErrorBody).error.code, 'tenant_not_found');
        }
      }
    });
  });
});
