import type { Knex } from 'knex';

export const name = '0015-knowledge-collections';

/**
 * Collections (docs/adr/0033): an organization's named collection has one generation per
 * embedding configuration (model and dimensions). Each generation's chunks live in a table of
 * their own, `knowledge_chunks_<generation id without dashes>`, created with it, so the HNSW
 * index has the dimension it needs and a dropped generation is one DROP TABLE. At most one
 * generation per (organization, name) is `active` (searched) and at most one `building` (a
 * reindex's target); `retired` ones are dropped. A reindex records its progress counters.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists vector');
  await knex.schema.createTable('knowledge_collections', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('organization_id', 255).notNullable();
    t.string('name', 100).notNullable();
    t.string('embedding_model', 200).notNullable();
    t.integer('dimensions').notNullable();
    t.string('state', 16).notNullable();
    t.string('chunk_table', 63).notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('activated_at', { useTz: true }).nullable();
  });
  await knex.raw(
    "alter table knowledge_collections add constraint knowledge_collections_state check (state in ('building', 'active', 'retired'))",
  );
  await knex.raw(
    "create unique index knowledge_collections_active on knowledge_collections (organization_id, name) where state = 'active'",
  );
  await knex.raw(
    "create unique index knowledge_collections_building on knowledge_collections (organization_id, name) where state = 'building'",
  );
  await knex.schema.createTable('knowledge_reindexes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('organization_id', 255).notNullable();
    t.string('collection', 100).notNullable();
    t.uuid('source_id').nullable().references('id').inTable('knowledge_collections');
    t.uuid('target_id').notNullable().references('id').inTable('knowledge_collections');
    t.string('state', 16).notNullable();
    t.integer('total').notNullable().defaultTo(0);
    t.integer('completed').notNullable().defaultTo(0);
    t.integer('failed').notNullable().defaultTo(0);
    t.integer('skipped').notNullable().defaultTo(0);
    t.text('reason').nullable();
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true }).nullable();
  });
  await knex.raw(
    "alter table knowledge_reindexes add constraint knowledge_reindexes_state check (state in ('running', 'cancelled', 'finished', 'failed'))",
  );
  // One reindex at a time per organization and collection.
  await knex.raw(
    "create unique index knowledge_reindexes_running on knowledge_reindexes (organization_id, collection) where state = 'running'",
  );
}

export async function down(knex: Knex): Promise<void> {
  const tables = await knex('knowledge_collections').pluck('chunk_table');
  for (const table of tables) await knex.schema.dropTableIfExists(table as string);
  await knex.schema.dropTableIfExists('knowledge_reindexes');
  await knex.schema.dropTableIfExists('knowledge_collections');
}
