import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { OrganizationRows } from '@aiplane/api';
import { createDatabase } from '@aiplane/hack';
import { createLogger } from '@aiplane/lib';
import { connect, migrate } from '@aiplane/lib/store';
import { KnowledgeCleanup } from '../../api/src/knowledge/cleanup.js';
import { KnowledgeCleanupStore } from '../../api/src/knowledge/cleanup-store.js';
import {
  type CollectionGeneration,
  CollectionsStore,
} from '../../api/src/knowledge/collections-store.js';
import { DirectoryBlobStore } from '../../api/src/knowledge/files-blob-store.js';
import { environment } from './harness.js';

/**
 * What goes when a tenant goes (docs/adr/0032, "When a tenant goes"), on real PostgreSQL with
 * pgvector and a real blob directory: an organization's files, folders, shares, jobs,
 * collections (their chunk tables) and blobs; blobs no file names; what moves with a
 * re-created organization's id. The watch and the sweep that call it: tenant-cleanup.test.ts.
 */
describe('knowledge cleanup: an organization’s files, collections and blobs (real PostgreSQL)', function () {
  this.timeout(60_000);
  let db: Knex;
  let dir: string;
  let blobs: DirectoryBlobStore;
  let collections: CollectionsStore;
  let cleanup: KnowledgeCleanup;

  before(async function () {
    db = connect(await createDatabase(environment().info(), 'knowledge_cleanup', { fresh: true }));
    await migrate(db);
    dir = await mkdtemp(join(tmpdir(), 'aiplane-knowledge-cleanup-'));
    blobs = new DirectoryBlobStore(dir);
    collections = new CollectionsStore(db, 'knowledge_nodes');
    cleanup = new KnowledgeCleanup({
      store: new KnowledgeCleanupStore(db),
      blobs,
      logger: createLogger({ level: 'silent' }),
    });
  });

  after(async function () {
    await db?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const blob = async (text: string) =>
    (await blobs.stage(Readable.from([Buffer.from(text)]), 1000)).commit();
  const blobExists = async (key: string) => (await blobs.open(key)) !== undefined;
  const tableExists = async (table: string) =>
    (await db('pg_tables').where({ tablename: table }).first()) !== undefined;

  /** An organization with a folder, a file in it (its blob, a share, a job), and a collection. */
  async function organizationWithKnowledge(organizationId: string) {
    const folder = randomUUID();
    const file = randomUUID();
    const key = await blob(`bytes of ${organizationId}`);
    await db('knowledge_nodes').insert([
      { id: folder, organization_id: organizationId, owner_id: 'u1', kind: 'folder', name: 'f' },
      {
        id: file,
        organization_id: organizationId,
        owner_id: 'u1',
        parent_id: folder,
        kind: 'file',
        name: 'a.txt',
        blob_key: key,
        status: 'RAG Available',
      },
    ]);
    await db('knowledge_shares').insert({
      node_id: file,
      organization_id: organizationId,
      target_type: 'user',
      target_id: 'u2',
      role: 'viewer',
      created_by: 'u1',
    });
    await db('knowledge_jobs').insert({
      id: randomUUID(),
      queue: 'processing',
      organization_id: organizationId,
      node_id: file,
      status: 'done',
      max_attempts: 3,
    });
    const active = await collections.create(organizationId, 'documents', 'm', 3, 'active');
    const building = await collections.create(organizationId, 'documents', 'm2', 3, 'building');
    for (const g of [active, building]) {
      await collections.putChunks(g, file, [
        { ordinal: 0, text: 'hello', metadata: {}, embedding: [1, 0, 0] },
      ]);
    }
    await db('knowledge_reindexes').insert({
      organization_id: organizationId,
      collection: 'documents',
      source_id: active.id,
      target_id: building.id,
      state: 'running',
    });
    return { file, key, generations: [active, building] as CollectionGeneration[] };
  }

  const rowsOf = async (organizationId: string) => {
    const counts: Record<string, number> = {};
    for (const table of [
      'knowledge_nodes',
      'knowledge_shares',
      'knowledge_jobs',
      'knowledge_collections',
      'knowledge_reindexes',
    ]) {
      counts[table] = (await db(table).where({ organization_id: organizationId })).length;
    }
    return counts;
  };

  it('removes every file, folder, share, job, collection, chunk table, reindex and blob of one organization; another’s stay', async function () {
    const doomed = randomUUID();
    const kept = randomUUID();
    const d = await organizationWithKnowledge(doomed);
    const k = await organizationWithKnowledge(kept);
    assert.deepEqual(await rowsOf(doomed), {
      knowledge_nodes: 2,
      knowledge_shares: 1,
      knowledge_jobs: 1,
      knowledge_collections: 2,
      knowledge_reindexes: 1,
    });

    // 2 nodes + 2 collections + 1 reindex, and 1 blob (shares and jobs go by foreign key).
    assert.equal(await cleanup.removeOrganization(doomed), 6);
    assert.deepEqual(await rowsOf(doomed), {
      knowledge_nodes: 0,
      knowledge_shares: 0,
      knowledge_jobs: 0,
      knowledge_collections: 0,
      knowledge_reindexes: 0,
    });
    for (const g of d.generations) assert.equal(await tableExists(g.chunkTable), false);
    assert.equal(await blobExists(d.key), false);

    assert.equal((await rowsOf(kept)).knowledge_nodes, 2);
    for (const g of k.generations) assert.equal(await tableExists(g.chunkTable), true);
    assert.equal(await blobExists(k.key), true);
    assert.equal(await cleanup.removeOrganization(doomed), 0, 'a second removal finds nothing');
  });

  it('sweeps organizations no live tenant records once their knowledge is older than the grace period', async function () {
    const gone = randomUUID();
    const young = randomUUID();
    const live = randomUUID();
    const mixed = randomUUID();
    const g = await organizationWithKnowledge(gone);
    await organizationWithKnowledge(young);
    await organizationWithKnowledge(mixed);
    // An old folder beside a file written a moment ago: the newest write decides.
    await db('knowledge_nodes')
      .where({ organization_id: mixed, kind: 'folder' })
      .update({ updated_at: db.raw("now() - interval '1 hour'") });
    await db('knowledge_collections')
      .where({ organization_id: mixed })
      .update({ created_at: db.raw("now() - interval '1 hour'") });
    const l = await organizationWithKnowledge(live);
    for (const id of [gone, live]) {
      await db('knowledge_nodes')
        .where({ organization_id: id })
        .update({ updated_at: db.raw("now() - interval '1 hour'") });
      await db('knowledge_collections')
        .where({ organization_id: id })
        .update({ created_at: db.raw("now() - interval '1 hour'") });
    }
    const others = (
      (await db('knowledge_nodes').distinct().pluck('organization_id')) as string[]
    ).filter((id: string) => !([gone, young] as string[]).includes(id));
    await cleanup.removeOrganizationsNotIn({ live: [live, ...others], graceSeconds: 600 });
    assert.equal((await rowsOf(gone)).knowledge_nodes, 0);
    assert.equal(await blobExists(g.key), false);
    assert.equal((await rowsOf(young)).knowledge_nodes, 2, 'younger than the grace period');
    assert.equal((await rowsOf(mixed)).knowledge_nodes, 2, 'it wrote during the grace period');
    assert.equal((await rowsOf(live)).knowledge_collections, 2, 'a live tenant’s, however old');
    assert.equal(await blobExists(l.key), true);
  });

  it('removes blobs no file names and staged bytes never committed, once older than the grace period', async function () {
    const named = await organizationWithKnowledge(randomUUID());
    const orphan = await blob('nobody names me');
    const youngOrphan = await blob('just uploaded, its row not yet written');
    const past = new Date(Date.now() - 3_600_000);
    for (const key of [orphan, named.key]) {
      await utimes(join(dir, 'blobs', key.slice(0, 2), key), past, past);
    }
    const partial = join(dir, 'tmp', `${randomUUID()}.partial`);
    await writeFile(partial, 'half an upload');
    await utimes(partial, past, past);

    assert.equal(await cleanup.removeOrphanBlobs(600), 2);
    assert.equal(await blobExists(orphan), false);
    assert.equal(await blobExists(named.key), true, 'named by a file, however old');
    assert.equal(await blobExists(youngOrphan), true, 'younger than the grace period');
    assert.equal(await cleanup.removeOrphanBlobs(600), 0);
  });

  it('moves collections with the files to a re-created organization’s id, unless the new id has its own', async function () {
    const from = randomUUID();
    const to = randomUUID();
    const moved = await organizationWithKnowledge(from);
    const rows = new OrganizationRows(db);
    await rows.move([from], to);
    assert.deepEqual(await rowsOf(from), {
      knowledge_nodes: 0,
      knowledge_shares: 0,
      knowledge_jobs: 0,
      knowledge_collections: 0,
      knowledge_reindexes: 0,
    });
    const active = await collections.active(to, 'documents');
    assert.equal(active?.id, moved.generations[0]?.id, 'the same generation, its chunks with it');

    const again = randomUUID();
    const other = randomUUID();
    await organizationWithKnowledge(again);
    await collections.create(other, 'documents', 'm', 3, 'active');
    await rows.move([again], other);
    assert.equal((await rowsOf(again)).knowledge_collections, 2, 'left for the sweep');
    assert.equal((await rowsOf(other)).knowledge_nodes, 2, 'the files moved all the same');
  });
});
