import type { Knex } from 'knex';
import { notLive, type LiveScope } from '@aiplane/lib/store';

/**
 * The tables whose rows name an organization (`organization_id`). `unique`: the columns that,
 * with `organization_id`, identify a row (the table's primary key), so a row kept under the
 * new id can stand in for an old one; absent for tables keyed otherwise (surrogate ids).
 */
const TABLES: readonly { name: string; unique?: readonly string[]; setting?: true }[] = [
  { name: 'agents' },
  // Who an agent is shared with (docs/adr/0035).
  { name: 'agent_shares' },
  { name: 'mcp_credentials' },
  { name: 'mcp_oauth_clients' },
  { name: 'mcp_oauth_states' },
  // Model downloads keep their directory (fixed at creation), so their files stay found.
  { name: 'model_downloads' },
  // Files and folders, their shares and processing jobs (docs/adr/0032); blobs are keyed by
  // their own ids, so they stay found.
  { name: 'knowledge_nodes' },
  { name: 'knowledge_shares' },
  { name: 'knowledge_jobs' },
  // The organization's platform settings: gone with its tenant (its agents go by AgentStore).
  { name: 'translation_overrides', unique: ['language', 'namespace', 'key'], setting: true },
  { name: 'organization_config', unique: [], setting: true },
  { name: 'branding_themes', unique: [], setting: true },
  { name: 'resource_profiles', unique: ['name'], setting: true },
  { name: 'branding_logos', unique: [], setting: true },
  // The organization's own catalogue entries; platform-wide ones (organization_id null) stay.
  { name: 'model_catalogue', unique: ['name'], setting: true },
];
const SETTINGS = TABLES.filter((t) => t.setting).map((t) => t.name);

/**
 * Rows kept under an organization id. When the operator re-creates a tenant's organization
 * (Keycloak gives it a new id), the rows of the ids it replaced move to the new one
 * (docs/adr/0015): user data never goes because an id changed.
 */
export class OrganizationRows {
  constructor(private readonly db: Knex) {}

  /**
   * Moves every row of the organizations `from` to `to`, in one transaction; answers how many
   * rows moved. A row already saved under `to` wins over an old one with the same key (which
   * could not move beside it). Idempotent: a second call finds nothing left under `from`.
   */
  async move(from: readonly string[], to: string): Promise<number> {
    const ids = from.filter((id) => id !== to);
    if (ids.length === 0) return 0;
    return this.db.transaction(async (trx) => {
      let moved = 0;
      for (const { name, unique } of TABLES) {
        if (unique) {
          const sameKey = unique.map((c) => trx.raw('and n.?? = o.??', [c, c]).toQuery());
          await trx.raw(
            `delete from ?? o using ?? n
              where o.organization_id = any(?) and n.organization_id = ? ${sameKey.join(' ')}`,
            [name, name, ids, to],
          );
        }
        moved += await trx(name).whereIn('organization_id', ids).update({ organization_id: to });
      }
      moved += await moveCollections(trx, ids, to);
      return moved;
    });
  }

  /** Removes the platform settings of an organization whose tenant was deleted. */
  async removeSettings(organizationId: string): Promise<number> {
    return this.db.transaction(async (trx) => {
      let removed = 0;
      for (const table of SETTINGS) {
        removed += await trx(table).where({ organization_id: organizationId }).delete();
      }
      return removed;
    });
  }

  /**
   * The sweep's part: settings of organizations no live tenant records, unchanged for the
   * grace period (a tenant deleted while no API ran, or a removal that failed).
   */
  async removeSettingsNotIn(scope: LiveScope): Promise<number> {
    let removed = 0;
    for (const table of SETTINGS) {
      removed += await this.db(table)
        .whereNotNull('organization_id') // platform-wide catalogue entries belong to no tenant
        .andWhere(notLive(this.db, { key: 'organization_id', time: 'updated_at' }, scope))
        .delete();
    }
    return removed;
  }
}

/**
 * The collections (and their reindexes) of the replaced id go with the files, unless the new
 * id already has a collection of its own (a file uploaded under it in the moment before the
 * move) or several replaced ids have some: two active generations of one name cannot be
 * merged, so the old ones then stay under their ids (while the tenant lives its replaced ids
 * count as its own, so no sweep removes them; they go with the tenant), and the moved files
 * need processing again to be found (docs/adr/0032, "When a tenant goes").
 */
async function moveCollections(trx: Knex.Transaction, from: string[], to: string): Promise<number> {
  const theirs = (await trx('knowledge_collections')
    .where({ organization_id: to })
    .limit(1)
    .pluck('id')) as string[];
  if (theirs.length > 0) return 0;
  const holders = (await trx('knowledge_collections')
    .whereIn('organization_id', from)
    .distinct()
    .pluck('organization_id')) as string[];
  // Several replaced ids with collections (an organization re-created more than once): which
  // to keep is not decidable here; they stay, as above.
  if (holders.length !== 1) return 0;
  const collections = await trx('knowledge_collections')
    .whereIn('organization_id', holders)
    .update({ organization_id: to });
  const reindexes = await trx('knowledge_reindexes')
    .whereIn('organization_id', holders)
    .update({ organization_id: to });
  return collections + reindexes;
}
