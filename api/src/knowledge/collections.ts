import type { Knex } from 'knex';
import type { Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import type { Embedder } from './embedder.js';
import { learnDimensions, OpenAiEmbedder, type OpenAiEmbedderOptions } from './openai-embedder.js';
import type { KnowledgeEngineConfig } from './engine-config.js';
import { LOCAL_EMBEDDING_MODEL, LocalEmbedder } from './local-embedder.js';
import {
  type CollectionGeneration,
  type CollectionsStore,
  MAX_DIMENSIONS,
  type ReadableFiles,
} from './collections-store.js';
import type { Caller } from '../sharing/roles.js';
import { withReadable } from './sharing-store.js';

/** The collection an organization's files are indexed in (ADR 0033). */
export const DOCUMENTS_COLLECTION = 'documents';

/** An embedding model a generation is written with (ADR 0034). */
export interface EmbeddingModelChoice {
  /** The local model's name, or the catalogue entry's. */
  name: string;
  /** The model's name at the catalogue backend; null for the local model. */
  backendModel: string | null;
  dimensions: number;
}

/** The configured embedding model is not an active catalogue entry of mode `embedding`. */
export class UnknownEmbeddingModel extends Error {
  constructor(readonly model: string) {
    super(`${model} is not an active catalogue model of mode embedding`);
  }
}

/** A catalogue embedding entry the organization uses, ready to call (its own model name). */
export type RemoteEmbedding = Omit<OpenAiEmbedderOptions, 'dimensions' | 'batchSize'>;

/**
 * The organization's collections put to work (ADR 0033, 0034): which generation a processed
 * file is written to, which embedding model reads a generation, and what a caller may read.
 * The local model (all-MiniLM-L6-v2 in a worker thread) starts on first use, not with the
 * API; a catalogue model is called through its OpenAI-compatible `/v1/embeddings` backend.
 */
export class KnowledgeCollections {
  private local: Promise<LocalEmbedder> | undefined;

  constructor(
    private readonly opts: {
      store: CollectionsStore;
      engines: KnowledgeEngineConfig;
      logger: Logger;
      /** The organization's configured embedding model (`/v1/config`); null: the local one. */
      configured?: (organizationId: string) => Promise<string | null>;
      /** The catalogue entry of mode `embedding` of this name the organization uses. */
      remote?: (organizationId: string, name: string) => Promise<RemoteEmbedding | undefined>;
    },
  ) {}

  get store(): CollectionsStore {
    return this.opts.store;
  }

  /**
   * The embedding model a generation was written with, ready to embed: the local model, or
   * the catalogue entry of its name called with the backend model name and the dimensions the
   * generation recorded (so the active generation keeps its vectors' space until a switch).
   */
  async embedderFor(generation: CollectionGeneration): Promise<Embedder> {
    if (generation.backendModel === null) {
      if (generation.embeddingModel !== LOCAL_EMBEDDING_MODEL) {
        throw new Error(`no embedder for the collection's model ${generation.embeddingModel}`);
      }
      return this.localEmbedder();
    }
    const remote = await this.opts.remote?.(generation.organizationId, generation.embeddingModel);
    if (!remote) {
      throw new ApiError(
        'model_backend_unavailable',
        `the collection's embedding model ${generation.embeddingModel} is no longer an active catalogue model of mode embedding`,
      );
    }
    return new OpenAiEmbedder({
      ...remote,
      model: generation.backendModel,
      dimensions: generation.dimensions,
    });
  }

  /** The organization's configured embedding model (null: the local one). */
  async configured(organizationId: string): Promise<string | null> {
    return (await this.opts.configured?.(organizationId)) ?? null;
  }

  /**
   * What a new generation with embedding model `name` (null: the local one) records: a
   * catalogue model's dimensions are learned from its backend, one text embedded.
   * UnknownEmbeddingModel when the catalogue has no such active entry.
   */
  async resolve(
    organizationId: string,
    name: string | null,
    signal?: AbortSignal,
  ): Promise<EmbeddingModelChoice> {
    if (name === null) {
      const local = await this.localEmbedder();
      return { name: local.model, backendModel: null, dimensions: local.dimensions };
    }
    const remote = await this.opts.remote?.(organizationId, name);
    if (!remote) throw new UnknownEmbeddingModel(name);
    const dimensions = await learnDimensions(remote, signal);
    if (dimensions > MAX_DIMENSIONS) {
      throw new ApiError(
        'model_backend_error',
        `${name} answers vectors of ${dimensions} dimensions; a collection takes at most ${MAX_DIMENSIONS}`,
      );
    }
    return { name, backendModel: remote.model, dimensions };
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
   * The generations a processed file is written to: the active one (created with the
   * configured model when the organization has none yet) and a reindex's target when one is
   * building (spec: uploads during a reindex go to the target).
   */
  async writeTargets(organizationId: string): Promise<CollectionGeneration[]> {
    let active = await this.opts.store.active(organizationId, DOCUMENTS_COLLECTION);
    if (!active) {
      const model = await this.resolve(organizationId, await this.configured(organizationId));
      try {
        active = await this.opts.store.create(
          organizationId,
          DOCUMENTS_COLLECTION,
          model.name,
          model.dimensions,
          'active',
          { backendModel: model.backendModel },
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
