import type { Knex } from 'knex';

export const name = '0004-mcp-oauth';

export async function up(knex: Knex): Promise<void> {
  // Clients registered (RFC 7591) with an upstream's authorization server, shared by every user
  // of the server. Rows are never changed: a new registration is a new row, and each OAuth
  // credential names the row whose client obtained its tokens.
  await knex.schema.createTable('mcp_oauth_clients', (t) => {
    t.uuid('id').primary();
    t.uuid('server_id').notNullable();
    t.string('organization_id', 255).notNullable();
    // The authorization server's issuer identifier (RFC 8414).
    t.text('issuer').notNullable();
    // The authorization server metadata as discovered when the client was registered.
    t.jsonb('metadata').notNullable();
    // The return address the client was registered with (AIPLANE_MCP_OAUTH_REDIRECT_URL).
    t.text('redirect_uri').notNullable();
    t.text('client_id').notNullable();
    // AES-256-GCM envelope of the client secret (lib/src/crypto); null for a public client.
    t.text('sealed_secret').nullable();
    t.string('token_endpoint_auth_method', 64).notNullable();
    t.timestamp('secret_expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['server_id', 'issuer']);
  });
  // Linking state tokens: single use, ten minutes, bound to user, organization and server.
  // Only the SHA-256 of the token is stored; the PKCE verifier is sealed.
  await knex.schema.createTable('mcp_oauth_states', (t) => {
    t.string('state_hash', 64).primary();
    t.uuid('server_id').notNullable();
    t.string('user_id', 255).notNullable();
    t.string('organization_id', 255).notNullable();
    t.uuid('client_ref')
      .notNullable()
      .references('id')
      .inTable('mcp_oauth_clients')
      .onDelete('CASCADE');
    t.text('sealed_verifier').notNullable();
    // The RFC 8707 resource indicator sent on authorize, and again on token and refresh.
    t.text('resource').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
    t.index(['server_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mcp_oauth_states');
  await knex.schema.dropTable('mcp_oauth_clients');
}
