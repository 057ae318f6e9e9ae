import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  connectionUri,
  PostgresProvisioner,
  type TenantDatabaseRef,
} from '../../operator/src/providers/database/index.js';
import { startTestApi, type TestApi } from './api-helpers.js';
import { environment } from './harness.js';
import { uniqueName } from './kube-helpers.js';
import { rememberSecret } from './secrets.js';

/**
 * Creates the extension (a no-op where the administrator installed it), a `vector(3)` table with
 * an HNSW index, and answers the three nearest neighbours of [1,1,1] with the index doing it.
 */
async function nearestNeighbours(client: pg.Client): Promise<string[]> {
  await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  await client.query('CREATE TABLE items (name text PRIMARY KEY, embedding vector(3) NOT NULL)');
  await client.query(
    `INSERT INTO items VALUES ('far', '[9,9,9]'), ('near', '[1,1,2]'), ('nearest', '[1,1,1.1]'),
                              ('middle', '[2,2,3]'), ('opposite', '[-5,-5,-5]')`,
  );
  await client.query(
    'CREATE INDEX items_embedding_hnsw ON items USING hnsw (embedding vector_l2_ops)',
  );
  // Five rows: without this the planner rightly prefers a sequential scan.
  await client.query('SET enable_seqscan = off');
  const knn = `SELECT name FROM items ORDER BY embedding <-> '[1,1,1]' LIMIT 3`;
  const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${knn}`);
  assert.match(
    plan.rows.map((r) => r['QUERY PLAN']).join('\n'),
    /Index Scan using items_embedding_hnsw on items/,
  );
  return (await client.query<{ name: string }>(knn)).rows.map((r) => r.name);
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

describe('pgvector in the local PostgreSQL (docs/adr/0030)', function () {
  let provisioner: PostgresProvisioner;
  let api: TestApi | undefined;
  const tenants: TenantDatabaseRef[] = [];
  const clients: pg.Client[] = [];

  async function session(url: string): Promise<pg.Client> {
    const client = await connect(url);
    clients.push(client);
    return client;
  }

  /** A tenant's dedicated database as the operator provisions it; its owner's URL. */
  async function tenantDatabase(): Promise<{ ownerUrl: string; adminUrl: string }> {
    const tenant = { slug: uniqueName('vec'), uid: randomUUID() };
    tenants.push(tenant);
    const creds = await provisioner.ensure(tenant);
    rememberSecret(creds.password);
    const { host, port } = environment().info().postgres;
    const adminUrl = new URL(environment().info().postgres.url);
    adminUrl.pathname = `/${creds.database}`;
    return {
      ownerUrl: connectionUri({ ...creds, host, port }),
      adminUrl: adminUrl.toString(),
    };
  }

  before(function () {
    const info = environment().info().postgres;
    rememberSecret(info.password);
    provisioner = new PostgresProvisioner({
      admin: { host: info.host, port: info.port, user: info.user, password: info.password },
    });
  });

  afterEach(async function () {
    await Promise.allSettled(clients.splice(0).map((c) => c.end()));
  });

  after(async function () {
    await api?.close();
    for (const tenant of tenants) await provisioner?.remove(tenant).catch(() => undefined);
    await provisioner?.close();
  });

  it('runs PostgreSQL 16 with pgvector 0.8.5 available', async function () {
    const client = await session(environment().info().postgres.url);
    const version = await client.query<{ version: string }>('SELECT version()');
    assert.match(version.rows[0]?.version ?? '', /^PostgreSQL 16\.\d+ /);
    const ext = await client.query<{ default_version: string }>(
      "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'",
    );
    assert.deepEqual(ext.rows, [{ default_version: '0.8.5' }]);
  });

  it("gives the API's migrated database pgvector: an HNSW index answers a nearest-neighbour query", async function () {
    api = await startTestApi('api-pgvector');
    const client = await session(api.databaseUrl);
    // Present before anyone asks: the administrator's step (template1) reached this database.
    const installed = await client.query<{ extversion: string }>(
      "SELECT extversion FROM pg_extension WHERE extname = 'vector'",
    );
    assert.deepEqual(installed.rows, [{ extversion: '0.8.5' }]);
    assert.deepEqual(await nearestNeighbours(client), ['nearest', 'near', 'middle']);
  });

  it("gives a tenant's dedicated database pgvector, usable by its owner, who is no superuser", async function () {
    const { ownerUrl } = await tenantDatabase();
    const owner = await session(ownerUrl);
    const who = await owner.query<{ rolsuper: boolean }>(
      'SELECT rolsuper FROM pg_roles WHERE rolname = current_user',
    );
    assert.deepEqual(who.rows, [{ rolsuper: false }]);
    assert.deepEqual(await nearestNeighbours(owner), ['nearest', 'near', 'middle']);
  });

  it('refuses the extension to a database owner where the administrator did not install it', async function () {
    const { ownerUrl, adminUrl } = await tenantDatabase();
    const admin = await session(adminUrl);
    await admin.query('DROP EXTENSION vector');
    const owner = await session(ownerUrl);
    await assert.rejects(
      owner.query('CREATE EXTENSION IF NOT EXISTS vector'),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, '42501');
        assert.match(err.message, /permission denied to create extension "vector"/);
        return true;
      },
    );
  });
});
