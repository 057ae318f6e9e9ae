import type { Knex } from 'knex';
import { notLive, type LiveScope } from '@aiplane/lib/store';

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
    const key = 'organization_id';
    const nodes = this.db('knowledge_nodes')
      .distinct(key)
      .where(notLive(this.db, { key, time: 'updated_at' }, scope));
    const collections = this.db('knowledge_collections')
      .distinct(key)
      .where(notLive(this.db, { key, time: 'created_at' }, scope));
    const rows = (await nodes.union(collections)) as { organization_id: string }[];
    return [...new Set(rows.map((r) => r.organization_id))].sort();
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
