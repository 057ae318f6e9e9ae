import type { Knex } from 'knex';

export const name = '0019-mcp-credential-notify';

/** The channel a credential's change is announced on; the payload is `<server id> <user id>`. */
export const MCP_CREDENTIAL_CHANGED_CHANNEL = 'aiplane_mcp_credential_changed';

/**
 * Every change of a credential's value (linked again, renewed, resealed, removed, removed with
 * its server) is announced as it commits, whichever statement made it, so a gateway replica
 * may keep credentials it read in memory (docs/adr/0043). Writing `last_used_at` or a
 * renewal's lease alone is not a change of the value and is not announced.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION aiplane_mcp_credential_changed() RETURNS trigger AS $$
    DECLARE
      r record;
    BEGIN
      IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
      PERFORM pg_notify('${MCP_CREDENTIAL_CHANGED_CHANNEL}', r.server_id || ' ' || r.user_id);
      RETURN NULL;
    END;
    $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE TRIGGER mcp_credentials_changed
    AFTER INSERT OR DELETE OR UPDATE OF kind, sealed, server_id, user_id ON mcp_credentials
    FOR EACH ROW EXECUTE FUNCTION aiplane_mcp_credential_changed()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER mcp_credentials_changed ON mcp_credentials');
  await knex.raw('DROP FUNCTION aiplane_mcp_credential_changed()');
}
