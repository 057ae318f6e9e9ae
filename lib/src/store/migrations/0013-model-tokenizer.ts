import type { Knex } from 'knex';

export const name = '0013-model-tokenizer';

/**
 * Where a catalogue entry's `tokenizer.json` is in the model store, for count_tokens
 * (docs/adr/0024): a relative path (the rules of model-installer file paths), null when the
 * model's tokenizer is not known and the documented estimate is used.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_catalogue', (t) => {
    t.text('tokenizer').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_catalogue', (t) => {
    t.dropColumn('tokenizer');
  });
}
