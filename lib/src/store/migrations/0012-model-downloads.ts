import type { Knex } from 'knex';

export const name = '0012-model-downloads';

/**
 * Model-installer downloads (docs/adr/0025): one row per download, one per file, and the
 * buffered log lines of active downloads. A download is worked by the replica holding its
 * lease (`lease_owner` until `lease_expires_at`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('model_downloads', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 255).notNullable();
    t.string('model', 128).notNullable();
    // The model's directory relative to the store, fixed at creation (an organization id may change).
    t.string('directory', 512).notNullable();
    t.string('status', 16).notNullable();
    t.text('error');
    t.string('lease_owner', 64);
    t.timestamp('lease_expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['organization_id', 'status']);
  });
  // At most one active download of a model in an organization.
  await knex.raw(
    `create unique index model_downloads_active_model on model_downloads (organization_id, model)
      where status in ('queued', 'running')`,
  );
  await knex.schema.createTable('model_download_files', (t) => {
    t.uuid('download_id').notNullable().references('model_downloads.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('url').notNullable();
    t.string('path', 1700).notNullable();
    t.string('sha256', 64);
    t.string('status', 16).notNullable().defaultTo('pending');
    t.bigInteger('bytes_done').notNullable().defaultTo(0);
    t.bigInteger('bytes_total');
    t.primary(['download_id', 'position']);
  });
  await knex.schema.createTable('model_download_logs', (t) => {
    t.bigIncrements('id');
    t.uuid('download_id').notNullable().references('model_downloads.id').onDelete('CASCADE');
    t.timestamp('time', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('message').notNullable();
    t.index(['download_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('model_download_logs');
  await knex.schema.dropTable('model_download_files');
  await knex.schema.dropTable('model_downloads');
}
