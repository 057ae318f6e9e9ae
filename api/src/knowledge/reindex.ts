import { type Static, Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import type { Logger } from '@aiplane/lib';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { Nullable } from '@aiplane/lib/service';
import {
  DOCUMENTS_COLLECTION,
  type EmbeddingModelChoice,
  type KnowledgeCollections,
  UnknownEmbeddingModel,
} from './collections.js';
import type { CollectionGeneration } from './collections-store.js';
import { engineApiError } from './engine-errors.js';
import type { BlobStore } from './files-blob-store.js';
import { processableFile, refusalsFail } from './files-processing.js';
import type { JobHandler } from './files-queue.js';
import type { JobRow, JobStore } from './files-queue-store.js';
import type { FilesStore } from './files-store.js';
import type { IndexingProcessor } from './indexing-processor.js';
import {
  ReindexAlreadyRunning,
  type ReindexRow,
  type ReindexStore,
  type ReindexTrigger,
} from './reindex-store.js';

/** The queue of reindex jobs: one per file of the organization, in `knowledge_jobs`. */
export const REINDEX_QUEUE = 'collection-reindex';

export const ReindexProgressSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    collection: Type.String(),
    state: Type.Union([
      Type.Literal('running'),
      Type.Literal('cancelled'),
      Type.Literal('finished'),
      Type.Literal('failed'),
    ]),
    trigger: Type.Union(
      [Type.Literal('config'), Type.Literal('catalogue'), Type.Literal('request')],
      {
        description:
          'what started it: a change of `embedding_model` in `/v1/config`, a catalogue change of the model in use, or a request',
      },
    ),
    source_model: Nullable(
      Type.String({ description: 'the model of the collection searched until the switch' }),
    ),
    embedding_model: Type.String({
      description: 'the model the target collection is written with',
    }),
    dimensions: Type.Integer({ description: 'the length of the target’s vectors' }),
    total: Type.Integer({ description: 'files of the organization when the reindex started' }),
    completed: Type.Integer({ description: 'files written to the target' }),
    failed: Type.Integer({ description: 'files that could not be indexed with the new model' }),
    skipped: Type.Integer({
      description:
        'files that needed no work: deleted meanwhile, or failed their own processing (and, once cancelled, those never reached)',
    }),
    reason: Nullable(Type.String()),
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'ReindexProgress' },
);
export type ReindexProgress = Static<typeof ReindexProgressSchema>;

/** `/v1/config`'s value for a generation's model: null for the local one. */
const configValueOf = (g: CollectionGeneration): string | null =>
  g.backendModel === null ? null : g.embeddingModel;

const runningError = () =>
  new ApiError(
    'reindex_running',
    'a reindex of the organization’s collection is running: wait for it to finish or cancel it (DELETE /v1/collections/documents/reindex)',
  );

export interface ReindexingOptions {
  db: Knex;
  store: ReindexStore;
  collections: KnowledgeCollections;
  jobs: JobStore;
  files: FilesStore;
  blobs: BlobStore;
  indexer: IndexingProcessor;
  /** Attempts of each file's job (AIPLANE_FILES_PROCESSING_ATTEMPTS). */
  attempts: number;
  /** Jobs were queued: the reindex queue looks for work now. */
  queued: () => void;
  /**
   * Inside a cancel's transaction: `/v1/config`'s `embedding_model` goes back from `from` to
   * `to` (when it still names `from`), so the configuration names the model in use.
   */
  revertConfig: (
    trx: Knex,
    organizationId: string,
    from: string | null,
    to: string | null,
  ) => Promise<void>;
  logger: Logger;
}

/**
 * Reindexing an organization's collection with another embedding model (docs/adr/0034): a
 * target generation is built file by file through the durable job queue while search stays on
 * the active one and uploads go to both; when no job is left the target becomes active in one
 * transaction and the old generation is dropped. Cancelling drops the target. A restart
 * resumes: the jobs are rows, and the start lists and settles what was left.
 */
export class Reindexing implements JobHandler {
  private watchdog: NodeJS.Timeout | undefined;
  private watching: Promise<void> | undefined;

  constructor(private readonly o: ReindexingOptions) {}

  /**
   * Every `everyMs`, what `resume` does at a start: a reindex whose last jobs went without a
   * handler (their files deleted: the jobs go with them by foreign key) is switched, and one
   * whose listing failed after its start is listed. Without it such a reindex would stay
   * running, and refuse every other, until the next start.
   */
  startWatchdog(everyMs: number): void {
    const tick = () => {
      this.watching = this.resume()
        .catch((err: unknown) => this.o.logger.warn({ err }, 'reindex: watchdog failed'))
        .finally(() => {
          this.watching = undefined;
          if (this.watchdog) this.watchdog = setTimeout(tick, everyMs).unref();
        });
    };
    this.watchdog = setTimeout(tick, everyMs).unref();
  }

  async stopWatchdog(): Promise<void> {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
    await this.watching;
  }

  /** The reindex running, else the last one, with its counters. */
  async progress(organizationId: string, name: string): Promise<ReindexProgress> {
    const row = await this.o.store.latest(organizationId, name);
    if (!row) {
      await this.collectionOf(organizationId, name);
      throw new ApiError(
        'reindex_not_found',
        `the collection ${name.slice(0, 100)} was never reindexed`,
      );
    }
    return this.view(row);
  }

  /**
   * Starts a reindex of the collection with the configured embedding model, even when it is
   * the one in use (its backend's model may have changed): 409 when one runs.
   */
  async request(organizationId: string, name: string): Promise<ReindexProgress> {
    await this.collectionOf(organizationId, name);
    const row = await this.start(organizationId, 'request');
    if (!row)
      throw new ApiError(
        'collection_not_found',
        `the organization has no collection named ${name}`,
      );
    return this.view(row);
  }

  /**
   * What starts a reindex to `model` (null: the local one) once the caller's transaction
   * commits: `apply` inside it, `committed` after it. The model is checked and its dimensions
   * learned first (422 naming `embedding_model`, 502/503 when its backend fails, 409 when a
   * reindex runs). Nothing to do while the organization has no collection yet (its first file
   * creates it with the configured model) or when the collection already uses that model.
   */
  async prepare(
    organizationId: string,
    model: string | null,
    trigger: ReindexTrigger,
  ): Promise<{ apply(trx: Knex): Promise<void>; committed(): Promise<void> }> {
    const active = await this.o.collections.store.active(organizationId, DOCUMENTS_COLLECTION);
    const none = { apply: () => Promise.resolve(), committed: () => Promise.resolve() };
    if (!active) return none;
    if (await this.o.store.running(organizationId, DOCUMENTS_COLLECTION)) throw runningError();
    const choice = await this.resolve(organizationId, model);
    if (trigger === 'config' && sameModel(active, choice)) return none;
    let started: ReindexRow | undefined;
    return {
      apply: async (trx) => {
        started = await this.begin(trx, organizationId, choice, trigger);
      },
      committed: async () => {
        if (started) await this.list(started.id);
      },
    };
  }

  /** Starts a reindex with the configured model; undefined when there is no collection yet. */
  async start(organizationId: string, trigger: ReindexTrigger): Promise<ReindexRow | undefined> {
    if (await this.o.store.running(organizationId, DOCUMENTS_COLLECTION)) throw runningError();
    const choice = await this.resolve(
      organizationId,
      await this.o.collections.configured(organizationId),
    );
    const row = await this.o.db.transaction((trx) =>
      this.begin(trx, organizationId, choice, trigger),
    );
    if (row) await this.list(row.id);
    return row;
  }

  /**
   * A catalogue entry of mode `embedding` now names another model at its backend: the
   * organizations whose collection it wrote are reindexed. `check` runs before the change is
   * written (409 when one of them is reindexing), `changed` after.
   */
  async catalogueChange(entry: {
    name: string;
    organizationId: string | null;
    backendModel: string;
  }) {
    const organizations = await this.o.store.organizationsUsing(DOCUMENTS_COLLECTION, entry);
    return {
      check: async () => {
        if (await this.o.store.anyRunning(organizations, DOCUMENTS_COLLECTION))
          throw runningError();
      },
      changed: async () => {
        for (const organizationId of organizations) {
          try {
            await this.start(organizationId, 'catalogue');
          } catch (err) {
            this.o.logger.error(
              { err, organizationId, model: entry.name },
              'reindex: could not start after a catalogue change',
            );
          }
        }
      },
    };
  }

  /** Cancels the running reindex: the target dropped, the old collection stays in use. */
  async cancel(organizationId: string, name: string): Promise<ReindexProgress> {
    await this.collectionOf(organizationId, name);
    const row = await this.o.db.transaction(async (trx) => {
      const running = await this.o.store.running(organizationId, name, trx);
      const locked = running && (await this.o.store.lockRunning(trx, running.id));
      if (!locked)
        throw new ApiError('reindex_not_found', 'no reindex of the collection is running');
      const c = await this.o.store.counters(locked, trx);
      await this.o.store.dropPendingJobs(trx, locked.id);
      const target = locked.target_id
        ? await this.o.collections.store.get(locked.target_id, trx)
        : undefined;
      const source = locked.source_id
        ? await this.o.collections.store.get(locked.source_id, trx)
        : undefined;
      if (target) await this.o.collections.store.drop(target, trx);
      if (locked.trigger === 'config' && target && source) {
        await this.o.revertConfig(
          trx,
          organizationId,
          configValueOf(target),
          configValueOf(source),
        );
      }
      return this.o.store.end(
        trx,
        locked.id,
        'cancelled',
        {
          total: c.total,
          completed: c.completed,
          failed: c.failed,
          skipped: c.skipped + c.pending,
        },
        'cancelled by an operator',
      );
    });
    this.o.logger.info({ organizationId, reindex: row.id }, 'reindex: cancelled');
    return this.view(row);
  }

  /**
   * After a start of the API: reindexes whose files were not listed are listed, those with no
   * job left are switched, and retired generations left by a stop right after a switch are
   * dropped.
   */
  async resume(): Promise<void> {
    for (const row of await this.o.store.allRunning()) {
      this.o.logger.debug(
        { organizationId: row.organization_id, reindex: row.id },
        'reindex: looking at a running reindex',
      );
      if (row.listed_at === null) await this.list(row.id);
      else await this.settle(row.id);
    }
    for (const retired of await this.o.collections.store.retired()) {
      await this.o.collections.store.drop(retired);
    }
  }

  // The reindex queue's jobs: one file each.

  async run(job: JobRow, signal: AbortSignal): Promise<string> {
    const row = job.reindex_id ? await this.o.store.get(job.reindex_id) : undefined;
    const target =
      row?.state === 'running' && row.target_id
        ? await this.o.collections.store.get(row.target_id)
        : undefined;
    if (!target || target.state !== 'building') return 'skipped';
    const file = await this.o.files.get(job.organization_id, job.node_id);
    // Gone, or it failed its own processing: nothing of it was searchable before either.
    if (!file || file.kind !== 'file' || file.blob_key === null || file.status === 'failed')
      return 'skipped';
    const stored = processableFile(file, file.blob_key, this.o.blobs);
    await refusalsFail(() =>
      this.o.indexer.indexInto(stored, () => Promise.resolve([target]), signal),
    );
    return 'completed';
  }

  async failed(job: JobRow): Promise<void> {
    if (job.reindex_id) await this.settle(job.reindex_id);
  }

  async done(job: JobRow): Promise<void> {
    if (job.reindex_id) await this.settle(job.reindex_id);
  }

  /** The model `name` (null: the local one) as a generation records it, or the route's error. */
  private async resolve(
    organizationId: string,
    name: string | null,
  ): Promise<EmbeddingModelChoice> {
    try {
      return await this.o.collections.resolve(organizationId, name);
    } catch (err) {
      if (err instanceof UnknownEmbeddingModel) {
        throw new ValidationFailed([{ field: 'embedding_model', message: err.message }]);
      }
      throw engineApiError(err) ?? err;
    }
  }

  /** The target generation and the running reindex, in the caller's transaction. */
  private async begin(
    trx: Knex,
    organizationId: string,
    choice: EmbeddingModelChoice,
    trigger: ReindexTrigger,
  ): Promise<ReindexRow | undefined> {
    const collections = this.o.collections.store;
    const source = await collections.active(organizationId, DOCUMENTS_COLLECTION, trx);
    if (!source) return undefined;
    if (await this.o.store.running(organizationId, DOCUMENTS_COLLECTION, trx)) throw runningError();
    // A building generation without a running reindex is what a failure left: it goes.
    const stale = await collections.building(organizationId, DOCUMENTS_COLLECTION, trx);
    if (stale) await collections.drop(stale, trx);
    try {
      const target = await collections.create(
        organizationId,
        DOCUMENTS_COLLECTION,
        choice.name,
        choice.dimensions,
        'building',
        { backendModel: choice.backendModel, trx },
      );
      const row = await this.o.store.insert(trx, {
        organization_id: organizationId,
        collection: DOCUMENTS_COLLECTION,
        source_id: source.id,
        target_id: target.id,
        source_model: source.embeddingModel,
        embedding_model: choice.name,
        dimensions: choice.dimensions,
        trigger,
      });
      this.o.logger.info(
        { organizationId, reindex: row.id, from: source.embeddingModel, to: choice.name, trigger },
        'reindex: started',
      );
      return row;
    } catch (err) {
      const constraint = (err as { constraint?: string }).constraint;
      if (err instanceof ReindexAlreadyRunning || constraint === 'knowledge_collections_building') {
        throw runningError();
      }
      throw err;
    }
  }

  /**
   * Queues a job per file of the organization, in a transaction after the one that made the
   * target: a file committed after this listing began is processed after the target was
   * visible, so its own processing writes it there (ADR 0034).
   */
  private async list(id: string): Promise<void> {
    await this.o.db.transaction(async (trx) => {
      const row = await this.o.store.lockRunning(trx, id);
      if (!row) return;
      const total = await this.o.jobs.enqueueReindex(trx, {
        queue: REINDEX_QUEUE,
        organizationId: row.organization_id,
        reindexId: id,
        maxAttempts: this.o.attempts,
      });
      await this.o.store.markListed(trx, id, total);
    });
    this.o.queued();
    await this.settle(id);
  }

  /**
   * When no job of the reindex is left: the target becomes the active generation, the files
   * it could not index are `failed` (they are no longer searchable), and the reindex is
   * `finished`, in one transaction; then the old generation's table is dropped.
   */
  private async settle(id: string): Promise<void> {
    const retired = await this.o.db.transaction(async (trx) => {
      const row = await this.o.store.lockRunning(trx, id);
      if (!row || row.listed_at === null) return undefined;
      const c = await this.o.store.counters(row, trx);
      if (c.pending > 0) return undefined;
      const counters = {
        total: c.total,
        completed: c.completed,
        failed: c.failed,
        skipped: c.skipped,
      };
      const target = row.target_id
        ? await this.o.collections.store.get(row.target_id, trx)
        : undefined;
      if (!target) {
        await this.o.store.end(trx, id, 'failed', counters, 'the target collection is gone');
        return undefined;
      }
      const old = await this.o.collections.store.activate(target, trx);
      for (const f of await this.o.store.failedFiles(trx, id)) {
        await this.o.files.setStatus(
          f.node_id,
          'failed',
          {
            status_reason: `not indexed with ${row.embedding_model}: ${f.last_error ?? 'failed'}`,
            chunk_count: null,
          },
          trx,
        );
      }
      await this.o.store.end(trx, id, 'finished', counters);
      this.o.logger.info(
        { organizationId: row.organization_id, reindex: id, ...counters },
        'reindex: finished',
      );
      return old;
    });
    if (retired) await this.o.collections.store.drop(retired);
  }

  private async collectionOf(organizationId: string, name: string): Promise<void> {
    if (!(await this.o.collections.store.active(organizationId, name))) {
      throw new ApiError(
        'collection_not_found',
        `the organization has no collection named ${name.slice(0, 100)}`,
      );
    }
  }

  private async view(row: ReindexRow): Promise<ReindexProgress> {
    const { total, completed, failed, skipped } = await this.o.store.counters(row);
    return {
      id: row.id,
      collection: row.collection,
      state: row.state,
      trigger: row.trigger,
      source_model: row.source_model,
      embedding_model: row.embedding_model,
      dimensions: row.dimensions,
      total,
      completed,
      failed,
      skipped,
      reason: row.reason,
      started_at: row.started_at.toISOString(),
      finished_at: row.finished_at?.toISOString() ?? null,
    };
  }
}

/** Whether a generation is written by `choice` (same model at the same backend name, same length). */
function sameModel(g: CollectionGeneration, choice: EmbeddingModelChoice): boolean {
  return (
    g.embeddingModel === choice.name &&
    g.backendModel === choice.backendModel &&
    g.dimensions === choice.dimensions
  );
}
