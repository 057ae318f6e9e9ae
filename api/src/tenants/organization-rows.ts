import type { Knex } from 'knex';

/** The tables whose rows name an organization (`organization_id`). */
const TABLES = [
  'agents',
  'mcp_credentials',
  'mcp_oauth_clients',
  'mcp_oauth_states',
  'translation_overrides',
  'organization_config',
  'branding_themes',
] as const;

/** The organization's platform settings: gone with its tenant (the agents go by AgentStore). */
const SETTINGS_TABLES = [
  'translation_overrides',
  'organization_config',
  'branding_themes',
] as const;

/**
 * Rows kept under an organization id. When the operator re-creates a tenant's organization
 * (Keycloak gives it a new id), the rows of the ids it replaced move to the new one
 * (docs/adr/0015): user data never goes because an id changed.
 */
export class OrganizationRows {
  constructor(private readonly db: Knex) {}

  /**
   * Moves every row of the organizations `from` to `to`, in one transaction; answers how many
   * rows moved. Idempotent: a second call finds nothing left under `from`.
   */
  async move(from: readonly string[], to: string): Promise<number> {
    const ids = from.filter((id) => id !== to);
    if (ids.length === 0) return 0;
    return this.db.transaction(async (trx) => {
      let moved = 0;
      // Settings saved under the new id after the repair win over the old ones (a row per
      // organization, or per key: the old row could not move beside the new one).
      for (const table of ['organization_config', 'branding_themes']) {
        if (await trx(table).where({ organization_id: to }).first('organization_id')) {
          await trx(table).whereIn('organization_id', ids).delete();
        }
      }
      await trx.raw(
        `delete from translation_overrides o using translation_overrides n
          where o.organization_id = any(?) and n.organization_id = ?
            and n.language = o.language and n.namespace = o.namespace and n.key = o.key`,
        [ids, to],
      );
      for (const table of TABLES) {
        moved += await trx(table).whereIn('organization_id', ids).update({ organization_id: to });
      }
      return moved;
    });
  }

  /** Removes the platform settings of an organization whose tenant was deleted. */
  async removeSettings(organizationId: string): Promise<number> {
    return this.db.transaction(async (trx) => {
      let removed = 0;
      for (const table of SETTINGS_TABLES) {
        removed += await trx(table).where({ organization_id: organizationId }).delete();
      }
      return removed;
    });
  }
}
