import type { Knex } from 'knex';

export const name = '0017-agent-shares';

/**
 * Custom GPT sharing (docs/adr/0035): a share gives a user or an identity-provider group of the
 * organization a role on an agent, as `knowledge_shares` does on files (0014). The agent's
 * creator is its owner without a row; shares go with their agent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agent_shares', (t) => {
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.string('organization_id', 255).notNullable();
    t.string('target_type', 8).notNullable();
    t.string('target_id', 255).notNullable();
    t.string('role', 8).notNullable();
    t.string('created_by', 255).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['agent_id', 'target_type', 'target_id']);
    t.index(['organization_id', 'target_type', 'target_id']);
  });
  await knex.raw(
    `alter table agent_shares add constraint agent_shares_values
       check (target_type in ('user', 'group') and role in ('viewer', 'editor', 'owner'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('agent_shares');
}
