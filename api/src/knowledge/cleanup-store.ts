import type { Knex } from 'knex';
import type { LiveScope } from '@aiplane/lib/store';

/**
 * The SQL of removing an organization's knowledge (docs/adr/0032, "When a tenant goes"): its
 * files and folders (their shares, jobs and chunks go with them by foreign key), its
 * collections with their chunk tables, its reindexes; and which blobs some file still names.
 */
export class KnowledgeCleanupStore {
  constructor(private readonly db: Knex) {}

  /**
   * Removes everything of the organization in one transaction; answers how many rows went and
   * the blob keys its files had (removed by the caller after the commit).
   */
  async removeOrganization(organizationId: string): Promise<{ rows: number; blobKeys: string[] }> {
    return this.db.transaction(async (trx) => {
      const where = { organization_id: organizationId };
      const reindexes = await trx('knowledge_reindexes').where(where).delete();
      const tables = await trx('knowledge_collections').where(where).pluck('chunk_table');
      // Chunk tables first: they reference the files.
      for (const table of tables as string[]) await trx.schema.dropTableIfExists(table);
      const collections = await trx('knowledge_collections').where(where).delete();
      const blobKeys = (await trx('knowledge_nodes')
        .where(where)
        .whereNotNull('blob_key')
        .pluck('blob_key')) as string[];
      const nodes = await trx('knowledge_nodes').where(where).delete();
      return { rows: reindexes + collections + nodes, blobKeys };
    });
  }

  /**
   * Organizations holding files or collections that no live tenant records, with nothing of
   * theirs written during the grace period (one just created may belong to a tenant some
   * replica saw a moment ago).
   */
  async organizationsNotIn(scope: LiveScope): Promise<string[]> {
    // The newest write of each organization decides, not any one old row: an organization
    // that wrote anything during the grace period is kept whole.
    const live = JSON.stringify(scope.live);
    const rows = await this.db.raw<{ rows: { organization_id: string }[] }>(
      `select organization_id from (
         select organization_id, max(updated_at) as at from knowledge_nodes group by organization_id
         union all
         select organization_id, max(created_at) as at from knowledge_collections group by organization_id
       ) w
       where not exists (
         select 1 from jsonb_array_elements_text(?::jsonb) as live(id) where live.id = w.organization_id::text
       )
       group by organization_id
       having max(at) < now() - make_interval(secs => ?)
       order by organization_id`,
      [live, scope.graceSeconds],
    );
    return rows.rows.map((r) => r.organization_id);
  }

  /** The keys among `keys` that a file names. */
  async namedBlobs(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const named = (await this.db('knowledge_nodes')
      .whereIn('blob_key', [...keys])
      .pluck('blob_key')) as string[];
    return new Set(named);
  }
}
