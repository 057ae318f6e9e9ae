import type { Knex } from 'knex';

export const name = '0005-mcp-oauth-hardening';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_credentials', (t) => {
    // Bumped on every write of `sealed` by a renewal or a new link: a renewal writes its result
    // back only when the row is still the version it read (compare-and-set, no row lock held
    // across the call to the authorization server).
    t.integer('version').notNullable().defaultTo(0);
    // A replica renewing this OAuth credential holds this lease (database clock); others wait
    // for its result instead of sending a second refresh.
    t.timestamp('refreshing_until', { useTz: true }).nullable();
  });
  await knex.schema.alterTable('mcp_oauth_states', (t) => {
    // The authorization server the linking was started with (RFC 9207 mix-up defence): the
    // callback's `iss` must equal it. Null only for states issued before this migration.
    t.text('issuer').nullable();
    // Whether that server advertised `authorization_response_iss_parameter_supported`: then
    // the callback must carry `iss`.
    t.boolean('iss_required').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_oauth_states', (t) => {
    t.dropColumn('iss_required');
    t.dropColumn('issuer');
  });
  await knex.schema.alterTable('mcp_credentials', (t) => {
    t.dropColumn('refreshing_until');
    t.dropColumn('version');
  });
}
