import type { Knex } from 'knex';

export type ReindexState = 'running' | 'cancelled' | 'finished' | 'failed';
/** What started a reindex: a `/v1/config` change, a catalogue change, or an explicit request. */
export type ReindexTrigger = 'config' | 'catalogue' | 'request';

/** A row of `knowledge_reindexes` (docs/adr/0034). */
export interface ReindexRow {
  id: string;
  organization_id: string;
  collection: string;
  source_id: string | null;
  target_id: string | null;
  state: ReindexState;
  source_model: string | null;
  embedding_model: string;
  dimensions: number;
  trigger: ReindexTrigger;
  /** Counters as they were when the reindex ended (while it runs they are counted live). */
  total: number;
  completed: number;
  failed: number;
  skipped: number;
  reason: string | null;
  started_at: Date;
  listed_at: Date | null;
  finished_at: Date | null;
}

export interface ReindexCounters {
  total: number;
  completed: number;
  failed: number;
  skipped: number;
}

/** The unique index that allows one running reindex per organization and collection. */
export class ReindexAlreadyRunning extends Error {}

const TABLE = 'knowledge_reindexes';
const JOBS = 'knowledge_jobs';

/**
 * Reindexes and their progress in PostgreSQL (docs/adr/0034). A running reindex's counters are
 * counted from its jobs: `total` files listed when it started, `completed` jobs done that wrote
 * the file, `failed` jobs out of attempts, `skipped` the rest that are no longer pending (done
 * without work, or gone with their file). An ended reindex keeps them in its row.
 */
export class ReindexStore {
  constructor(private readonly db: Knex) {}

  /** Records a running reindex (in the caller's transaction); ReindexAlreadyRunning if one is. */
  async insert(
    trx: Knex,
    row: Pick<
      ReindexRow,
      | 'organization_id'
      | 'collection'
      | 'source_id'
      | 'target_id'
      | 'source_model'
      | 'embedding_model'
      | 'dimensions'
      | 'trigger'
    >,
  ): Promise<ReindexRow> {
    try {
      const [inserted] = await trx<ReindexRow>(TABLE)
        .insert({ ...row, state: 'running' })
        .returning('*');
      return inserted as ReindexRow;
    } catch (err) {
      if ((err as { constraint?: string }).constraint === 'knowledge_reindexes_running') {
        throw new ReindexAlreadyRunning('a reindex of the collection is running');
      }
      throw err;
    }
  }

  async get(id: string, trx: Knex = this.db): Promise<ReindexRow | undefined> {
    return trx<ReindexRow>(TABLE).where({ id }).first();
  }

  async running(
    organizationId: string,
    collection: string,
    trx: Knex = this.db,
  ): Promise<ReindexRow | undefined> {
    return trx<ReindexRow>(TABLE)
      .where({ organization_id: organizationId, collection, state: 'running' })
      .first();
  }

  /** The running reindex, else the one that ended last. */
  async latest(organizationId: string, collection: string): Promise<ReindexRow | undefined> {
    return this.db<ReindexRow>(TABLE)
      .where({ organization_id: organizationId, collection })
      .orderByRaw("state = 'running' desc, started_at desc")
      .first();
  }

  async allRunning(): Promise<ReindexRow[]> {
    return this.db<ReindexRow>(TABLE).where({ state: 'running' }).orderBy('started_at');
  }

  /** Whether any of these organizations has a running reindex of the collection. */
  async anyRunning(organizationIds: readonly string[], collection: string): Promise<boolean> {
    if (organizationIds.length === 0) return false;
    const row: unknown = await this.db(TABLE)
      .whereIn('organization_id', [...organizationIds])
      .andWhere({ collection, state: 'running' })
      .first('id');
    return row !== undefined;
  }

  /** Locks the reindex's row while it runs (undefined once it ended). */
  async lockRunning(trx: Knex, id: string): Promise<ReindexRow | undefined> {
    return trx<ReindexRow>(TABLE).where({ id, state: 'running' }).forUpdate().first();
  }

  async markListed(trx: Knex, id: string, total: number): Promise<void> {
    await trx(TABLE).where({ id }).update({ total, listed_at: trx.fn.now() });
  }

  /** The counters of a reindex: live from its jobs while it runs, as kept once it ended. */
  async counters(
    row: ReindexRow,
    trx: Knex = this.db,
  ): Promise<ReindexCounters & { pending: number }> {
    if (row.state !== 'running') {
      const { total, completed, failed, skipped } = row;
      return { total, completed, failed, skipped, pending: 0 };
    }
    if (row.listed_at === null)
      return { total: 0, completed: 0, failed: 0, skipped: 0, pending: 0 };
    const rows: unknown[] = await trx(JOBS)
      .where({ reindex_id: row.id })
      .select(
        trx.raw("count(*) filter (where status in ('queued', 'running'))::int as pending"),
        trx.raw(
          "count(*) filter (where status = 'done' and outcome = 'completed')::int as completed",
        ),
        trx.raw("count(*) filter (where status = 'failed')::int as failed"),
      );
    const { pending, completed, failed } = rows[0] as {
      pending: number;
      completed: number;
      failed: number;
    };
    const skipped = Math.max(row.total - completed - failed - pending, 0);
    return { total: row.total, completed, failed, skipped, pending };
  }

  /** The files whose job failed, with the reason. */
  async failedFiles(
    trx: Knex,
    id: string,
  ): Promise<{ node_id: string; last_error: string | null }[]> {
    return trx(JOBS).where({ reindex_id: id, status: 'failed' }).select('node_id', 'last_error');
  }

  /** Removes the jobs still waiting or running (a running one's worker loses its lease). */
  async dropPendingJobs(trx: Knex, id: string): Promise<void> {
    await trx(JOBS).where({ reindex_id: id }).whereIn('status', ['queued', 'running']).delete();
  }

  /** Ends a running reindex with its counters (in the caller's transaction, row locked). */
  async end(
    trx: Knex,
    id: string,
    state: Exclude<ReindexState, 'running'>,
    counters: ReindexCounters,
    reason: string | null = null,
  ): Promise<ReindexRow> {
    const [row] = await trx<ReindexRow>(TABLE)
      .where({ id, state: 'running' })
      .update({ state, ...counters, reason, finished_at: trx.fn.now() })
      .returning('*');
    return row as ReindexRow;
  }

  /**
   * The organizations whose active generation of `collection` (or a reindex's target) is
   * written by the catalogue entry `name` (an organization's own, or a platform-wide one where
   * the organization has no active entry of that name in mode `embedding`) as another model
   * at its backend than `backendModel`.
   */
  async organizationsUsing(
    collection: string,
    entry: { name: string; organizationId: string | null; backendModel: string },
  ): Promise<string[]> {
    const q = this.db({ c: 'knowledge_collections' })
      .where({ 'c.name': collection, 'c.embedding_model': entry.name })
      .whereIn('c.state', ['active', 'building'])
      .whereNotNull('c.backend_model')
      .whereNot({ 'c.backend_model': entry.backendModel });
    if (entry.organizationId !== null) {
      void q.where({ 'c.organization_id': entry.organizationId });
    } else {
      void q.whereNotExists(
        this.db('model_catalogue as m')
          .whereRaw('m.organization_id = c.organization_id')
          .andWhere({ 'm.name': entry.name, 'm.mode': 'embedding', 'm.active': true }),
      );
    }
    return [...new Set<string>(await q.pluck('c.organization_id'))];
  }
}
