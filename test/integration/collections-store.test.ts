import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createDatabase } from '@aiplane/hack';
import { connect, migrate } from '@aiplane/lib/store';
import {
  type CollectionGeneration,
  CollectionsStore,
  type ReadableFiles,
} from '../../api/src/knowledge/collections-store.js';
import { environment } from './harness.js';

/**
 * The collection store on PostgreSQL with pgvector (ADR 0033): chunk tables per generation,
 * nearest neighbours by cosine with metadata filters and the caller's access in the same SQL,
 * the atomic switch of a reindex, and dropping a generation. Vectors are written by hand here
 * (three dimensions) to pin the SQL; the real model's retrieval is proven in knowledge tests.
 */
describe('collections store: pgvector search with filters and access in SQL', function () {
  this.timeout(60_000);
  let db: Knex;
  let store: CollectionsStore;
  const org = `org-${randomUUID()}`;
  const files = { alice: randomUUID(), bob: randomUUID(), shared: randomUUID() };
  const ownedBy =
    (user: string): ReadableFiles =>
    (q) =>
      void q.where('f.owner', user);

  before(async function () {
    const url = await createDatabase(environment().info(), 'aiplane_collections_store', {
      fresh: true,
    });
    db = connect(url);
    await migrate(db);
    await db.schema.createTable('test_files', (t) => {
      t.uuid('id').primary();
      t.string('owner').notNullable();
      t.string('name').notNullable();
    });
    await db('test_files').insert([
      { id: files.alice, owner: 'alice', name: 'alice.md' },
      { id: files.bob, owner: 'bob', name: 'bob.md' },
      { id: files.shared, owner: 'alice', name: 'team.md' },
    ]);
    store = new CollectionsStore(db, 'test_files');
  });

  after(async function () {
    await db?.destroy();
  });

  async function fill(g: CollectionGeneration): Promise<void> {
    await store.putChunks(g, files.alice, [
      { ordinal: 0, text: 'east', metadata: { lang: 'en', kind: 'note' }, embedding: [1, 0, 0] },
      {
        ordinal: 1,
        text: 'north-east',
        metadata: { lang: 'de', kind: 'note' },
        embedding: [1, 1, 0],
      },
      { ordinal: 2, text: 'up', metadata: { lang: 'en', kind: 'memo' }, embedding: [0, 0, 1] },
    ]);
    await store.putChunks(g, files.bob, [
      {
        ordinal: 0,
        text: 'bob east',
        metadata: { lang: 'en', kind: 'note' },
        embedding: [1, 0.01, 0],
      },
    ]);
  }

  it('answers the nearest chunks by cosine, best first, with a score of 1 for the same direction', async function () {
    const g = await store.create(org, 'documents', 'test-3d', 3, 'active');
    await fill(g);
    const hits = await store.search(g, [2, 0, 0], [], ownedBy('alice'), 3);
    assert.deepEqual(
      hits.map((h) => h.text),
      ['east', 'north-east', 'up'],
    );
    assert.ok(Math.abs((hits[0]?.score ?? 0) - 1) < 1e-6);
    assert.ok(Math.abs((hits[1]?.score ?? 0) - Math.SQRT1_2) < 1e-6);
    assert.ok(Math.abs(hits[2]?.score ?? 1) < 1e-6);
    assert.equal(hits[0]?.fileId, files.alice);
    assert.deepEqual(hits[0]?.metadata, { lang: 'en', kind: 'note' });
  });

  it('never returns a chunk of a file the caller may not read, even the nearest one', async function () {
    const g = (await store.active(org, 'documents'))!;
    const alice = await store.search(g, [1, 0.01, 0], [], ownedBy('alice'), 10);
    assert.ok(!alice.some((h) => h.fileId === files.bob));
    const bob = await store.search(g, [1, 0, 0], [], ownedBy('bob'), 10);
    assert.deepEqual(
      bob.map((h) => h.text),
      ['bob east'],
    );
  });

  it('filters by metadata with == and in, every filter applying', async function () {
    const g = (await store.active(org, 'documents'))!;
    const en = await store.search(
      g,
      [1, 0, 0],
      [{ field: 'lang', operator: '==', value: 'en' }],
      ownedBy('alice'),
      10,
    );
    assert.deepEqual(
      en.map((h) => h.text),
      ['east', 'up'],
    );
    const both = await store.search(
      g,
      [1, 0, 0],
      [
        { field: 'lang', operator: 'in', value: ['en', 'de'] },
        { field: 'kind', operator: '==', value: 'note' },
      ],
      ownedBy('alice'),
      10,
    );
    assert.deepEqual(
      both.map((h) => h.text),
      ['east', 'north-east'],
    );
    const none = await store.search(
      g,
      [1, 0, 0],
      [{ field: 'lang', operator: '==', value: 'fr' }],
      ownedBy('alice'),
      10,
    );
    assert.deepEqual(none, []);
  });

  it('replaces a file’s chunks when it is processed again, and removes them with the file', async function () {
    const g = (await store.active(org, 'documents'))!;
    await store.putChunks(g, files.shared, [
      { ordinal: 0, text: 'old', metadata: {}, embedding: [0, 1, 0] },
      { ordinal: 1, text: 'older', metadata: {}, embedding: [0, 1, 0] },
    ]);
    await store.putChunks(g, files.shared, [
      { ordinal: 0, text: 'new', metadata: {}, embedding: [0, 1, 0] },
    ]);
    const hits = await store.search(
      g,
      [0, 1, 0],
      [],
      (q) => void q.where('f.id', files.shared),
      10,
    );
    assert.deepEqual(
      hits.map((h) => h.text),
      ['new'],
    );
    await db('test_files').where({ id: files.shared }).delete();
    assert.deepEqual(
      await store.search(g, [0, 1, 0], [], (q) => void q.where('f.id', files.shared), 10),
      [],
    );
  });

  it('switches a reindex’s target in atomically, retiring the old generation, and drops it with its table', async function () {
    const old = (await store.active(org, 'documents'))!;
    const target = await store.create(org, 'documents', 'test-2d', 2, 'building');
    await assert.rejects(store.create(org, 'documents', 'another', 2, 'building'), /unique/);
    await store.putChunks(target, files.alice, [
      { ordinal: 0, text: 'flat', metadata: {}, embedding: [1, 0] },
    ]);
    assert.equal((await store.active(org, 'documents'))?.id, old.id);
    const retired = await store.activate(target);
    assert.equal(retired?.id, old.id);
    assert.equal((await store.active(org, 'documents'))?.id, target.id);
    assert.equal((await store.get(old.id))?.state, 'retired');
    await store.drop(retired);
    assert.equal(await store.get(old.id), undefined);
    assert.equal(await db.schema.hasTable(old.chunkTable), false);
    // The active generation is never dropped.
    await store.drop(target);
    assert.equal(await db.schema.hasTable(target.chunkTable), true);
  });
});
