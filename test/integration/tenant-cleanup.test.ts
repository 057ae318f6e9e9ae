import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { API_VERSION, type TenantLifecycle } from '@aiplane/crds';
import { kubeRequest } from '@aiplane/lib';
import { waitFor, type ManagedProcess } from '@aiplane/hack';
import { assertCode, queryRows, startTestApi, type TestApi } from './api-helpers.js';
import { acting, type FileNode } from './files-helpers.js';
import { kubeConfig } from './harness.js';
import { kubeDeleteAndWait } from './kube-helpers.js';
import {
  addMembers,
  caller,
  CLEANUP_GRACE_SECONDS,
  CLEANUP_WITHIN_MS,
  createAgent,
  provisionTenants,
  removeMembers,
  type Agent,
  type Tenant,
  type Call,
} from './fixtures/index.js';
import { startOperatorProcess } from './operator-process.js';
import { adminCall, awaitTenantGone } from './tenant-helpers.js';

/** The first API's name, and so its database's, which the restarted API reuses. */
const API_NAME = 'api-tenant-cleanup';
/** Where both APIs of this suite keep files' bytes. */
const FILES_DIR = mkdtempSync(join(tmpdir(), 'aiplane-tenant-cleanup-files-'));
const FILES_ENV = { AIPLANE_FILES_DIR: FILES_DIR };
/** The blob keys under FILES_DIR. */
const blobKeys = (): string[] =>
  readdirSync(join(FILES_DIR, 'blobs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
const TENANTS_PATH = `/apis/${API_VERSION}/tenantlifecycles`;

describe('agents of a deleted tenant (API, operator, kube-apiserver, PostgreSQL, Keycloak)', function () {
  let api: TestApi | undefined;
  let databaseUrl: string;
  let operator: ManagedProcess;
  let kept: Tenant;
  let doomed: Tenant;
  let offline: Tenant;
  /** Calls the current API as a platform admin acting in the organization. */
  const adminIn = (t: Tenant | string): Call =>
    caller(api?.url ?? '', 'admin', typeof t === 'string' ? t : t.organizationId);
  const memberIn = (t: Tenant): Call => caller(api?.url ?? '', 'member', t.organizationId);

  const query = <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
    queryRows<R>(databaseUrl, sql, params);
  /** The ids of the organization's agents as the database has them. */
  const agentRows = async (organizationId: string) =>
    (
      await query<{ id: string }>('select id from agents where organization_id = $1 order by id', [
        organizationId,
      ])
    ).map((r) => r.id);
  const sorted = (ids: string[]) => [...ids].sort();
  /** Ten minutes pass for these agents, as far as the database can tell. */
  const age = (ids: string[]) =>
    query(
      `update agents set created_at = now() - interval '10 minutes',
         updated_at = now() - interval '10 minutes' where id = any($1::uuid[])`,
      [ids],
    );
  const tenantObjects = async () =>
    (
      await kubeRequest<{ items: TenantLifecycle[] }>(kubeConfig(), {
        method: 'GET',
        path: TENANTS_PATH,
      })
    ).items;
  const kubeDeleteTenant = (slug: string) =>
    kubeDeleteAndWait(`${TENANTS_PATH}/${slug}`, `TenantLifecycle ${slug}`, { timeoutMs: 90_000 });

  before(async function () {
    this.timeout(240_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    api = await startTestApi(API_NAME, FILES_ENV);
    databaseUrl = api.databaseUrl;
    [kept, doomed, offline] = await provisionTenants(
      api.url,
      'agents-kept',
      'agents-doomed',
      'agents-offline',
    );
    for (const t of [kept, doomed, offline]) await addMembers(t.organizationId);
  });

  after(async function () {
    for (const t of [kept, doomed, offline]) {
      if (!t) continue;
      // Removing a member of an organization the deleted tenant took along answers 404: fine.
      await removeMembers(t.organizationId);
    }
    await operator?.stop();
    await api?.close();
    rmSync(FILES_DIR, { recursive: true, force: true });
  });

  it('answers 409 organization_not_provisioned to an agent in an organization without a tenant, and lists none', async function () {
    const nowhere = adminIn(randomUUID());
    assertCode(
      await nowhere('POST', '/v1/agents', { name: 'orphan' }),
      409,
      'organization_not_provisioned',
    );
    const list = await nowhere('GET', '/v1/agents');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json(), { agents: [], count: 0 });
  });

  it('deleting a tenant through the admin API deletes every agent and the settings of its organization; another tenant’s stay', async function () {
    const mine = await createAgent(memberIn(doomed), 'doomed-member');
    const theirs = await createAgent(adminIn(doomed), 'doomed-admin');
    const other = await createAgent(memberIn(kept), 'kept-member');
    assert.deepEqual(await agentRows(doomed.organizationId), sorted([mine.id, theirs.id]));
    // Its platform settings too: translations, configuration, branding (docs/adr/0017–0019).
    for (const t of [doomed, kept]) {
      const admin = adminIn(t);
      assert.equal((await admin('PATCH', '/v1/translations/de', { c: { k: 'v' } })).status, 200);
      assert.equal((await admin('PATCH', '/v1/config', { retrieval_k: 9 })).status, 200);
      const theme = (await admin('GET', '/v1/branding/theme')).json();
      assert.equal((await admin('PUT', '/v1/branding/theme', theme)).status, 200);
      // The logo row as the logo store writes it (an upload is raw bytes, not this JSON caller).
      await query(
        `insert into branding_logos (organization_id, content, content_type, etag)
         values ($1, $2, 'image/svg+xml', '"e"')`,
        [t.organizationId, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
      );
    }
    const settingRows = async (organizationId: string) => {
      let n = 0;
      for (const table of [
        'translation_overrides',
        'organization_config',
        'branding_themes',
        'branding_logos',
      ]) {
        n += (await query(`select 1 from ${table} where organization_id = $1`, [organizationId]))
          .length;
      }
      return n;
    };
    assert.equal(await settingRows(doomed.organizationId), 4);

    // And its files: a folder and a file in it, with its blob and its chunks in the
    // organization's collection (docs/adr/0032, "When a tenant goes").
    const fileRows = async (organizationId: string) =>
      (await query('select 1 from knowledge_nodes where organization_id = $1', [organizationId]))
        .length;
    const collectionTables = async (organizationId: string) =>
      (
        await query<{ chunk_table: string }>(
          'select chunk_table from knowledge_collections where organization_id = $1',
          [organizationId],
        )
      ).map((r) => r.chunk_table);
    const uploaded = new Map<string, FileNode>();
    for (const t of [doomed, kept]) {
      const member = acting(api?.url ?? '', 'member', t.organizationId);
      const folder = await member.call('POST', '/v1/folders', { name: 'notes', folder_id: null });
      assert.equal(folder.status, 201, folder.text);
      const r = await member.upload({
        folder_id: (folder.json() as FileNode).id,
        file: { data: `The harbour of ${t.slug} opens at dawn.`, filename: 'harbour.txt' },
      });
      assert.equal(r.status, 201, r.text);
      uploaded.set(t.id, r.json() as FileNode);
      await waitFor(
        `the file of ${t.slug} to be indexed`,
        async () => (await collectionTables(t.organizationId)).length === 1,
        { timeoutMs: 120_000 },
      );
    }
    const doomedTables = await collectionTables(doomed.organizationId);
    const blobsBefore = blobKeys();
    assert.equal(blobsBefore.length, 2);
    assert.equal(await fileRows(doomed.organizationId), 2);

    const del = await adminCall(`${api?.url}/v1/admin/tenants/${doomed.id}`, { method: 'DELETE' });
    assert.equal(del.status, 202, del.text);
    await awaitTenantGone(api?.url ?? '', doomed.id);

    await waitFor(
      'the deleted tenant’s agents to go',
      async () => (await agentRows(doomed.organizationId)).length === 0,
      { timeoutMs: CLEANUP_WITHIN_MS },
    );
    // A platform admin may still name the organization: it has no agents and takes none.
    const inDoomed = adminIn(doomed);
    const list = await inDoomed('GET', '/v1/agents');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json(), { agents: [], count: 0 });
    assertCode(await inDoomed('GET', `/v1/agents/${mine.id}`), 404, 'agent_not_found');
    assertCode(
      await inDoomed('POST', '/v1/agents', { name: 'too-late' }),
      409,
      'organization_not_provisioned',
    );

    await waitFor(
      'the deleted tenant’s settings to go',
      async () => (await settingRows(doomed.organizationId)) === 0,
      { timeoutMs: CLEANUP_WITHIN_MS },
    );
    assert.equal(await settingRows(kept.organizationId), 4);

    assert.deepEqual(await agentRows(kept.organizationId), [other.id]);
    const still = await memberIn(kept)('GET', `/v1/agents/${other.id}`);
    assert.equal(still.status, 200, still.text);

    await waitFor(
      'the deleted tenant’s files, collections and blobs to go',
      async () =>
        (await fileRows(doomed.organizationId)) === 0 &&
        (await collectionTables(doomed.organizationId)).length === 0 &&
        blobKeys().length === 1,
      { timeoutMs: CLEANUP_WITHIN_MS },
    );
    for (const table of doomedTables) {
      assert.deepEqual(await query('select 1 from pg_tables where tablename = $1', [table]), []);
    }
    assert.equal(await fileRows(kept.organizationId), 2);
    const keptFile = uploaded.get(kept.id);
    const download = await acting(api?.url ?? '', 'member', kept.organizationId).call(
      'GET',
      `/v1/files/${keptFile?.id}/content`,
    );
    assert.equal(download.status, 200, download.text);
    assert.match(download.text, /opens at dawn/);
  });

  describe('after a restart: a tenant deleted while no API ran', function () {
    let old: Agent;
    let young: Agent;
    let keptOld: Agent;

    /** The restarted API's sweep has removed the old agent of the tenant deleted meanwhile. */
    const swept = () =>
      waitFor(
        'the sweep to remove the old agent of the tenant deleted while no API ran',
        async () => !(await agentRows(offline.organizationId)).includes(old.id),
        { timeoutMs: CLEANUP_WITHIN_MS },
      );

    before(async function () {
      this.timeout(180_000);
      old = await createAgent(memberIn(offline), 'offline-old');
      young = await createAgent(memberIn(offline), 'offline-young');
      keptOld = await createAgent(memberIn(kept), 'kept-old');
      await age([old.id, keptOld.id]);
      // Settings of both tenants, older than the grace period.
      for (const t of [offline, kept]) {
        const r = await adminIn(t)('PATCH', '/v1/translations/de', { c: { k: 'old' } });
        assert.equal(r.status, 200, r.text);
      }
      await query(
        `update translation_overrides set updated_at = now() - interval '10 minutes'
          where organization_id = any($1)`,
        [[offline.organizationId, kept.organizationId]],
      );

      await api?.close();
      api = undefined;
      await kubeDeleteTenant(offline.slug);
      // The sweep leaves agents alone while a live tenant has no organization recorded (it
      // cannot tell a tenant being provisioned from one whose status was lost): remove what
      // other suites left behind without one, so that this sweep runs.
      for (const t of await tenantObjects()) {
        if (!t.status?.organizationId) {
          await kubeDeleteTenant(t.metadata.name ?? '');
        }
      }
      assert.deepEqual(
        await agentRows(offline.organizationId),
        sorted([old.id, young.id]),
        'nothing removed the agents while no API ran',
      );

      api = await startTestApi(API_NAME + '-restarted', FILES_ENV, {
        databaseOf: API_NAME,
        mcpOrphanGraceSeconds: CLEANUP_GRACE_SECONDS,
      });
    });

    it('sweeps the agents of the gone tenant’s organization once older than the grace period', async function () {
      await swept();
      assertCode(await adminIn(offline)('GET', `/v1/agents/${old.id}`), 404, 'agent_not_found');
    });

    it('keeps agents younger than the grace period, even when their tenant is gone', async function () {
      await swept();
      assert.deepEqual(await agentRows(offline.organizationId), [young.id]);
    });

    it('sweeps the settings of the gone tenant’s organization; a live tenant’s stay, however old', async function () {
      const translations = (organizationId: string) =>
        query('select 1 from translation_overrides where organization_id = $1', [organizationId]);
      await waitFor(
        'the sweep to remove the settings of the tenant deleted while no API ran',
        async () => (await translations(offline.organizationId)).length === 0,
        { timeoutMs: CLEANUP_WITHIN_MS },
      );
      assert.equal((await translations(kept.organizationId)).length, 1);
      assert.deepEqual((await adminIn(kept)('GET', '/v1/translations')).json(), {
        de: { c: { k: 'old' } },
      });
    });

    it('never sweeps the agents of a live tenant, however old: they stay and answer', async function () {
      await swept();
      assert.ok((await agentRows(kept.organizationId)).includes(keptOld.id));
      const r = await memberIn(kept)('GET', `/v1/agents/${keptOld.id}`);
      assert.equal(r.status, 200, r.text);
      assert.equal((r.json() as Agent).organization_id, kept.organizationId);
    });
  });
});
