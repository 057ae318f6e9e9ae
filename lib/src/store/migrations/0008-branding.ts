import type { Knex } from 'knex';

export const name = '0008-branding';

/** The saved branding theme of each organization (defaults when none is saved). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('branding_themes', (t) => {
    t.string('organization_id', 255).primary();
    t.jsonb('theme').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('branding_themes');
}
