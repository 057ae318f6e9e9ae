import type { Knex } from 'knex';

export const name = '0001-api-keys';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('user_id', 255).notNullable();
    t.string('name', 200).notNullable();
    // sk-svc-v1- plus 8 characters of the body: shown in listings, used to find the row.
    t.string('prefix', 32).notNullable();
    // SHA-256 of the whole key; the key itself is never stored.
    t.string('hash', 64).notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['prefix']);
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
}
