import type { Knex } from 'knex';

export const name = '0003-agents';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agents', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('organization_id', 255).notNullable();
    t.string('created_by', 255).notNullable();
    t.string('name', 200).notNullable();
    t.string('description', 500).nullable();
    t.text('instructions').nullable();
    t.string('model', 200).nullable();
    // Ids (McpServer uids) of the organization's MCP servers, in the order given.
    t.jsonb('mcp_server_ids').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('agents');
}
