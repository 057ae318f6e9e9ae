import type { Knex } from 'knex';

export const name = '0006-translations';

/** Translation overrides of an organization: one row per (language, namespace, key). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('translation_overrides', (t) => {
    t.string('organization_id', 255).notNullable();
    // A canonical BCP 47 tag (Intl.getCanonicalLocales), e.g. `en`, `de-AT`.
    t.string('language', 35).notNullable();
    t.string('namespace', 64).notNullable();
    t.string('key', 256).notNullable();
    t.text('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organization_id', 'language', 'namespace', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('translation_overrides');
}
