import type { Knex } from 'knex';

export const name = '0018-knowledge-reindex';

/**
 * Reindexing (docs/adr/0034). A generation records the model's name at its backend
 * (`backend_model`, null for the local model), so a catalogue change of that name is seen and
 * the old generation keeps embedding queries as it was written until the switch. A reindex
 * keeps the models' names (its generations are dropped when it ends), when its files were
 * listed, and its counters once it ended; its jobs wait in `knowledge_jobs` with their
 * `reindex_id` and, once done, their `outcome` (`completed` or `skipped`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('knowledge_collections', (t) => {
    t.string('backend_model', 200).nullable();
  });
  await knex.schema.alterTable('knowledge_reindexes', (t) => {
    t.dropForeign(['source_id']);
    t.dropForeign(['target_id']);
  });
  await knex.schema.alterTable('knowledge_reindexes', (t) => {
    t.uuid('target_id').nullable().alter();
    t.foreign('source_id').references('knowledge_collections.id').onDelete('SET NULL');
    t.foreign('target_id').references('knowledge_collections.id').onDelete('SET NULL');
    t.string('source_model', 200).nullable();
    t.string('embedding_model', 200).notNullable().defaultTo('');
    t.integer('dimensions').notNullable().defaultTo(0);
    t.string('trigger', 16).notNullable().defaultTo('request');
    t.timestamp('listed_at', { useTz: true }).nullable();
  });
  await knex.schema.alterTable('knowledge_jobs', (t) => {
    t.uuid('reindex_id').nullable().references('knowledge_reindexes.id').onDelete('CASCADE');
    t.string('outcome', 16).nullable();
    t.index(['reindex_id', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('knowledge_jobs', (t) => {
    t.dropIndex(['reindex_id', 'status']);
    t.dropColumn('reindex_id');
    t.dropColumn('outcome');
  });
  await knex.schema.alterTable('knowledge_reindexes', (t) => {
    t.dropColumn('source_model');
    t.dropColumn('embedding_model');
    t.dropColumn('dimensions');
    t.dropColumn('trigger');
    t.dropColumn('listed_at');
  });
  await knex.schema.alterTable('knowledge_collections', (t) => {
    t.dropColumn('backend_model');
  });
}
