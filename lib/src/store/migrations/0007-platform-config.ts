import type { Knex } from 'knex';

export const name = '0007-platform-config';

/**
 * The system configuration of each organization (one JSON document and its version, the ETag)
 * and the model catalogue the configuration names models from (issue 17 extends it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organization_config', (t) => {
    t.string('organization_id', 255).primary();
    t.jsonb('config').notNullable();
    t.integer('version').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('model_catalogue', (t) => {
    t.string('name', 200).primary();
    // chat, embedding, rerank, … (spec: the `rerank` mode, release 1.2.1).
    t.string('mode', 32).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('model_catalogue');
  await knex.schema.dropTable('organization_config');
}
