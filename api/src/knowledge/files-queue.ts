import { randomUUID } from 'node:crypto';
import type { Logger } from '@aiplane/lib';
import { ClaimLoop } from '@aiplane/lib/service';
import type { JobRow, JobStore } from './files-queue-store.js';

export interface QueueSettings {
  /** Jobs this replica runs at once. */
  concurrency: number;
  /** How long a lease lasts without renewal (a replica that died frees its jobs then). */
  leaseMs: number;
  /** How often a running job's lease is renewed. */
  heartbeatMs: number;
  /** How often the replica looks for due jobs. */
  pollMs: number;
  /** The first retry's delay; each next one doubles it, up to `backoffMaxMs`. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_QUEUE_SETTINGS: Omit<QueueSettings, 'concurrency'> = {
  leaseMs: 30_000,
  heartbeatMs: 5_000,
  pollMs: 2_000,
  backoffBaseMs: 2_000,
  backoffMaxMs: 300_000,
};

/** A failure that no retry can mend (the file is not text, it is gone): the job ends at once. */
export class PermanentJobFailure extends Error {}

/** What a queue runs. */
export interface JobHandler {
  /**
   * Does the job; throws to fail the attempt (retried unless {@link PermanentJobFailure}). What
   * it answers is kept as the done job's outcome.
   */
  run(job: JobRow, signal: AbortSignal): Promise<string | void>;
  /** The job will not run again: its attempts are used up, or the failure was permanent. */
  failed(job: JobRow, reason: string): Promise<void>;
  /** The job was recorded done (after {@link run} answered). */
  done?(job: JobRow): Promise<void>;
}

/** The delay before attempt `attempts + 1`: base × 2^(attempts − 1), capped. */
export function backoffMs(
  attempts: number,
  s: Pick<QueueSettings, 'backoffBaseMs' | 'backoffMaxMs'>,
) {
  return Math.min(s.backoffBaseMs * 2 ** Math.max(attempts - 1, 0), s.backoffMaxMs);
}

type StopReason = 'stopping' | 'lease-lost';

/**
 * Runs the jobs of one queue held in PostgreSQL (docs/adr/0032): claims due ones up to its
 * concurrency, renews their leases while they run, and ends each done, queued again after a
 * backoff, or failed. On stop it aborts what runs and gives the jobs back (the next start, or
 * another replica, takes them at once); after a crash their leases expire.
 */
export class JobQueue {
  readonly owner = `api-${randomUUID()}`;
  private readonly loop: ClaimLoop<JobRow>;

  constructor(
    private readonly queue: string,
    private readonly store: JobStore,
    private readonly handler: JobHandler,
    private readonly settings: QueueSettings,
    private readonly logger: Logger,
  ) {
    this.loop = new ClaimLoop({
      concurrency: settings.concurrency,
      pollMs: settings.pollMs,
      claim: () => this.store.claim(this.queue, this.owner, this.settings.leaseMs),
      work: (job, controller) => this.work(job, controller),
      release: (ids) => this.store.release(this.owner, ids),
      failed: (err, id) => this.logger.error({ err, queue, job: id }, 'jobs: claim or end failed'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for work now (a job was just queued). */
  kick(): void {
    this.loop.kick();
  }

  /** Aborts what runs (`'stopping'`) and gives those jobs back, due at once. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async work(job: JobRow, controller: AbortController): Promise<void> {
    const { signal } = controller;
    const log = { queue: this.queue, job: job.id, node: job.node_id, attempt: job.attempts };
    const beat = setInterval(() => {
      this.store
        .renew(job.id, this.owner, this.settings.leaseMs)
        .then((held) => {
          if (!held && !signal.aborted) controller.abort('lease-lost' satisfies StopReason);
        })
        .catch((err: unknown) => this.logger.warn({ err, ...log }, 'jobs: lease renewal failed'));
    }, this.settings.heartbeatMs);
    try {
      if (job.attempts > job.max_attempts) {
        // Its last attempt stopped with its replica (the lease expired): no attempt is left.
        await this.end(job, `${job.last_error ?? 'interrupted'} (no attempt left)`, log);
        return;
      }
      this.logger.info(log, 'jobs: started');
      const outcome = await this.handler.run(job, signal);
      if (signal.aborted) return;
      if (await this.store.finish(job.id, this.owner, outcome ?? null)) {
        this.logger.info({ ...log, outcome }, 'jobs: done');
        await this.handler.done?.(job);
      }
    } catch (err) {
      if (signal.aborted) {
        // Stopping: stop() gives the job back. Lease lost: another replica has it.
        this.logger.info({ ...log, reason: signal.reason as StopReason }, 'jobs: interrupted');
        return;
      }
      const reason = err instanceof Error ? err.message : String(err);
      if (err instanceof PermanentJobFailure || job.attempts >= job.max_attempts) {
        await this.end(job, reason, log);
        return;
      }
      const delay = backoffMs(job.attempts, this.settings);
      this.logger.warn({ ...log, err, delayMs: delay }, 'jobs: attempt failed; retrying');
      await this.store.retry(job.id, this.owner, delay, reason);
    } finally {
      clearInterval(beat);
    }
  }

  private async end(job: JobRow, reason: string, log: Record<string, unknown>): Promise<void> {
    this.logger.warn({ ...log, reason }, 'jobs: failed');
    if (await this.store.fail(job.id, this.owner, reason)) await this.handler.failed(job, reason);
  }
}
