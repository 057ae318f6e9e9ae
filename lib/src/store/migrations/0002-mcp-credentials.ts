import type { Knex } from 'knex';

export const name = '0002-mcp-credentials';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_credentials', (t) => {
    // The McpServer's uid; one credential per user and server.
    t.uuid('server_id').notNullable();
    t.string('user_id', 255).notNullable();
    t.string('organization_id', 255).notNullable();
    // static: a token the user pasted; oauth: a serialised token set from OAuth linking.
    t.string('kind', 16).notNullable().defaultTo('static');
    // AES-256-GCM envelope `v1.<kid>.<iv>.<ct>.<tag>` (lib/src/crypto); never the plain value.
    t.text('sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.primary(['server_id', 'user_id']);
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mcp_credentials');
}
