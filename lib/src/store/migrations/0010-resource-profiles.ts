import type { Knex } from 'knex';

export const name = '0010-resource-profiles';

/** Infrastructure profiles for model deployment, per organization (docs/adr/0023). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('resource_profiles', (t) => {
    t.string('organization_id', 255).notNullable();
    t.string('name', 63).notNullable();
    t.jsonb('profile').notNullable();
    t.boolean('enabled').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organization_id', 'name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('resource_profiles');
}
