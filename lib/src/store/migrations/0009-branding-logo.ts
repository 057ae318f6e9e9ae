import type { Knex } from 'knex';

export const name = '0009-branding-logo';

/**
 * The branding logo of each organization (docs/adr/0020): the stored bytes (an SVG already
 * sanitised), the content type detected from them, and their SHA-256 as the ETag.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('branding_logos', (t) => {
    t.string('organization_id', 255).primary();
    t.binary('content').notNullable();
    t.string('content_type', 32).notNullable();
    t.string('etag', 80).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('branding_logos');
}
