import type { Knex } from 'knex';

export const name = '0016-agent-documents';

/**
 * A Custom GPT's documents (spec: Custom GPTs carry `document_ids`; ADR 0033): ids of files
 * whose chunks the messages API gives the model as context, read with the caller's access.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.jsonb('document_ids').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumn('document_ids');
  });
}
