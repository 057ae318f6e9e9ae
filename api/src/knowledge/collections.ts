import type { Knex } from 'knex';
import type { Logger } from '@aiplane/lib';
import type { Embedder } from './embedder.js';
import type { KnowledgeEngineConfig } from './engine-config.js';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder.js';
import type { CollectionGeneration, CollectionsStore, ReadableFiles } from './collections-store.js';
import type { Caller } from '../sharing/roles.js';
import { withReadable } from './sharing-store.js';

/** The collection an organization's files are indexed in (ADR 0033). */
export const DOCUMENTS_COLLECTION = 'documents';

/**
 * The organization's collections put to work (ADR 0033): which generation a processed file is
 * written to, which embedding model reads a generation, and what a caller may read. The local
 * model (all-MiniLM-L6-v2 in a worker thread) starts on first use, not with the API.
 */
export class KnowledgeCollections {
  private local: Promise<LocalEmbedder> | undefined;

  constructor(
    private readonly opts: {
      store: CollectionsStore;
      engines: KnowledgeEngineConfig;
      logger: Logger;
    },
  ) {}

  get store(): CollectionsStore {
    return this.opts.store;
  }

  /** The embedding model a generation was written with, ready to embed. */
  async embedderFor(generation: CollectionGeneration): Promise<Embedder> {
    if (generation.embeddingModel !== LOCAL_EMBEDDING_MODEL) {
      // A catalogue embedding model is the reindex's part of issue 18 (ADR 0033, Not yet).
      throw new Error(`no embedder for the collection's model ${generation.embeddingModel}`);
    }
    return this.localEmbedder();
  }

  /** The local model, started once (a failed start is tried again on the next call). */
  localEmbedder(): Promise<LocalEmbedder> {
    this.local ??= LocalEmbedder.start({
      modelDir: this.opts.engines.localModelDir,
      batchSize: this.opts.engines.embeddingBatchSize,
      threads: this.opts.engines.embeddingThreads,
    }).catch((err: unknown) => {
      this.local = undefined;
      throw err;
    });
    return this.local;
  }

  /**
   * The generations a processed file is written to: the active one (created with the default
   * model when the organization has none yet) and a reindex's target when one is building
   * (spec: uploads during a reindex go to the target).
   */
  async writeTargets(organizationId: string): Promise<CollectionGeneration[]> {
    let active = await this.opts.store.active(organizationId, DOCUMENTS_COLLECTION);
    if (!active) {
      const embedder = await this.localEmbedder();
      try {
        active = await this.opts.store.create(
          organizationId,
          DOCUMENTS_COLLECTION,
          embedder.model,
          embedder.dimensions,
          'active',
        );
      } catch (err) {
        // Another job created it first (the unique index): use theirs.
        active = await this.opts.store.active(organizationId, DOCUMENTS_COLLECTION);
        if (!active) throw err;
      }
    }
    const building = await this.opts.store.building(organizationId, DOCUMENTS_COLLECTION);
    return building ? [active, building] : [active];
  }

  /** The search condition for what `caller` may read: owned or shared files (ADR 0032). */
  readableBy(db: Knex, caller: Caller): ReadableFiles {
    return (q) => {
      withReadable(q, db, caller);
      void q.whereIn('f.id', db.select('id').from('readable'));
    };
  }

  async close(): Promise<void> {
    const local = this.local;
    this.local = undefined;
    if (local) await (await local.catch(() => undefined))?.close();
  }
}
