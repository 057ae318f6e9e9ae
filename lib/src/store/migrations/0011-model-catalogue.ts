import type { Knex } from 'knex';

export const name = '0011-model-catalogue';

/**
 * The model catalogue grows from `(name, mode)` (0007, read by the reranker check of
 * `/v1/config`) to entries per organization plus platform-wide ones (organization_id null),
 * each with its OpenAI-compatible backend (docs/adr/0024). Rows written before keep working:
 * they become platform-wide, active, without a backend address.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_catalogue', (t) => {
    t.dropPrimary();
  });
  await knex.schema.alterTable('model_catalogue', (t) => {
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('organization_id', 255).nullable();
    t.string('backend_kind', 32).notNullable().defaultTo('openai');
    t.text('base_url').nullable();
    t.string('backend_model', 200).nullable();
    // sealSecret envelope of the backend's API key (write-only); null when none.
    t.text('api_key_sealed').nullable();
    t.integer('context_window').nullable();
    t.boolean('in_cluster').notNullable().defaultTo(false);
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.alterTable('model_catalogue', (t) => {
    t.primary(['id']);
  });
  // One name per organization, and one among the platform-wide entries.
  await knex.raw(
    'create unique index model_catalogue_org_name on model_catalogue (organization_id, name) where organization_id is not null',
  );
  await knex.raw(
    'create unique index model_catalogue_platform_name on model_catalogue (name) where organization_id is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists model_catalogue_org_name');
  await knex.raw('drop index if exists model_catalogue_platform_name');
  await knex('model_catalogue').whereNotNull('organization_id').delete();
  await knex.schema.alterTable('model_catalogue', (t) => {
    t.dropPrimary();
    for (const column of [
      'id',
      'organization_id',
      'backend_kind',
      'base_url',
      'backend_model',
      'api_key_sealed',
      'context_window',
      'in_cluster',
      'active',
      'updated_at',
    ]) {
      t.dropColumn(column);
    }
  });
  await knex.schema.alterTable('model_catalogue', (t) => {
    t.primary(['name']);
  });
}
