import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

/** A row of `knowledge_jobs`: one piece of work on one node, in a named queue. */
export interface JobRow {
  id: string;
  queue: string;
  organization_id: string;
  node_id: string;
  status: JobStatus;
  /** Attempts started, this one included while it runs. */
  attempts: number;
  max_attempts: number;
  run_at: Date;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  /** The reindex the job is part of (its queue is the reindex's), else null. */
  reindex_id: string | null;
  /** What a done job did, when its handler said (a reindex's `completed` or `skipped`). */
  outcome: string | null;
}

const TABLE = 'knowledge_jobs';

/**
 * The durable queue's SQL (docs/adr/0032): jobs wait `queued` until `run_at`; a replica claims
 * one with `FOR UPDATE SKIP LOCKED` and holds it by a lease it renews; a job whose lease expired
 * (its replica died) is claimed again. Every write after the claim names the lease owner, so a
 * replica that lost its lease changes nothing.
 */
export class JobStore {
  constructor(private readonly db: Knex) {}

  /** Queues work on a node (in the caller's transaction); none twice while one is pending. */
  async enqueue(
    trx: Knex,
    job: { queue: string; organizationId: string; nodeId: string; maxAttempts: number },
  ): Promise<void> {
    await trx.raw(
      `insert into ${TABLE} (id, queue, organization_id, node_id, status, max_attempts)
       values (?, ?, ?, ?, 'queued', ?)
       on conflict (queue, node_id) where status in ('queued', 'running') do nothing`,
      [randomUUID(), job.queue, job.organizationId, job.nodeId, job.maxAttempts],
    );
  }

  /**
   * Queues one job of a reindex per file of the organization that has none in it yet (a
   * listing run again after a restart adds nothing twice); the number of its jobs then.
   */
  async enqueueReindex(
    trx: Knex,
    job: { queue: string; organizationId: string; reindexId: string; maxAttempts: number },
  ): Promise<number> {
    await trx.raw(
      `insert into ${TABLE} (id, queue, organization_id, node_id, status, max_attempts, reindex_id)
       select gen_random_uuid(), ?, n.organization_id, n.id, 'queued', ?, ?
         from knowledge_nodes n
        where n.organization_id = ? and n.kind = 'file'
          and not exists (select 1 from ${TABLE} j where j.reindex_id = ? and j.node_id = n.id)
       on conflict (queue, node_id) where status in ('queued', 'running') do nothing`,
      [job.queue, job.maxAttempts, job.reindexId, job.organizationId, job.reindexId],
    );
    const [row] = await trx(TABLE)
      .where({ reindex_id: job.reindexId })
      .count<{ n: string }[]>({ n: '*' });
    return Number(row?.n ?? 0);
  }

  /** Takes the next due job of the queue (or one whose lease expired) for `owner`. */
  async claim(queue: string, owner: string, leaseMs: number): Promise<JobRow | undefined> {
    const { rows } = await this.db.raw<{ rows: JobRow[] }>(
      `update ${TABLE} set status = 'running', attempts = attempts + 1, lease_owner = ?,
              lease_expires_at = now() + make_interval(secs => ?), updated_at = now()
        where id = (
          select id from ${TABLE}
           where queue = ?
             and ((status = 'queued' and run_at <= now())
               or (status = 'running' and lease_expires_at < now()))
           order by run_at, created_at
           for update skip locked
           limit 1)
       returning *`,
      [owner, leaseMs / 1000, queue],
    );
    return rows[0];
  }

  /** Extends the lease; false when the job is no longer this owner's (taken, or gone). */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const n = await this.running(id, owner).update({
      lease_expires_at: this.db.raw('now() + make_interval(secs => ?)', [leaseMs / 1000]),
      updated_at: this.db.fn.now(),
    });
    return n > 0;
  }

  /** The job succeeded; `outcome` says how, when its handler told. */
  async finish(id: string, owner: string, outcome: string | null = null): Promise<boolean> {
    return this.end(id, owner, 'done', null, outcome);
  }

  /** The job will not run again; `error` says why. */
  async fail(id: string, owner: string, error: string): Promise<boolean> {
    return this.end(id, owner, 'failed', error);
  }

  /** The attempt failed; the job runs again after `delayMs`. */
  async retry(id: string, owner: string, delayMs: number, error: string): Promise<boolean> {
    const n = await this.running(id, owner).update({
      status: 'queued',
      run_at: this.db.raw('now() + make_interval(secs => ?)', [delayMs / 1000]),
      last_error: error,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: this.db.fn.now(),
    });
    return n > 0;
  }

  /**
   * Gives running jobs back on a clean stop: due at once, and the interrupted attempt not
   * counted (it did not fail; its replica stopped).
   */
  async release(owner: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db(TABLE)
      .whereIn('id', ids)
      .andWhere({ lease_owner: owner, status: 'running' })
      .update({
        status: 'queued',
        attempts: this.db.raw('greatest(attempts - 1, 0)'),
        run_at: this.db.fn.now(),
        lease_owner: null,
        lease_expires_at: null,
        updated_at: this.db.fn.now(),
      });
  }

  async jobsOf(nodeId: string): Promise<JobRow[]> {
    return this.db<JobRow>(TABLE).where({ node_id: nodeId }).orderBy('created_at');
  }

  private running(id: string, owner: string): Knex.QueryBuilder {
    return this.db(TABLE).where({ id, lease_owner: owner, status: 'running' });
  }

  private async end(
    id: string,
    owner: string,
    status: 'done' | 'failed',
    error: string | null,
    outcome: string | null = null,
  ): Promise<boolean> {
    const n = await this.running(id, owner).update({
      status,
      outcome,
      last_error: error,
      lease_owner: null,
      lease_expires_at: null,
      finished_at: this.db.fn.now(),
      updated_at: this.db.fn.now(),
    });
    return n > 0;
  }
}
