import { type Static, Type } from '@sinclair/typebox';
import { ApiError, type FieldError, ValidationFailed } from '@aiplane/lib/errors';
import { validator } from '@aiplane/lib/service';
import {
  type ChunkHit,
  type CollectionGeneration,
  type CollectionsStore,
  isDroppedTable,
  type MetadataFilter,
  type ReadableFiles,
} from './collections-store.js';
import type { Reranker } from './reranker.js';
import type { Caller } from '../sharing/roles.js';

const FilterSchema = Type.Object(
  {
    field: Type.String({ minLength: 1, maxLength: 200, description: 'a metadata key' }),
    operator: Type.Union([Type.Literal('=='), Type.Literal('in')]),
    value: Type.Union(
      [
        Type.String({ maxLength: 1000 }),
        Type.Array(Type.String({ maxLength: 1000 }), { minItems: 1, maxItems: 100 }),
      ],
      {
        description: 'a string with `==`, a list of strings with `in`',
      },
    ),
  },
  { additionalProperties: false, title: 'CollectionSearchFilter' },
);

export const CollectionSearchRequest = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 8000, description: 'what to look for' }),
    filters: Type.Optional(
      Type.Array(FilterSchema, {
        maxItems: 20,
        description: 'every filter must match (metadata key and value)',
      }),
    ),
  },
  { additionalProperties: false, title: 'CollectionSearchRequest' },
);
export type CollectionSearchRequest = Static<typeof CollectionSearchRequest>;

export const CollectionSearchHit = Type.Object(
  {
    chunk_id: Type.String(),
    document_id: Type.String({ format: 'uuid', description: 'the file the chunk is part of' }),
    file_name: Type.String(),
    text: Type.String(),
    score: Type.Number({ description: 'cosine similarity, or the reranker’s relevance score' }),
    metadata: Type.Record(Type.String(), Type.String()),
  },
  { title: 'CollectionSearchHit' },
);

export const CollectionSearchAnswer = Type.Object(
  {
    collection: Type.String(),
    embedding_model: Type.String(),
    results: Type.Array(CollectionSearchHit),
  },
  { title: 'CollectionSearchAnswer' },
);
export type CollectionSearchAnswer = Static<typeof CollectionSearchAnswer>;

const parseShape = validator(CollectionSearchRequest);

/**
 * The request, or 422: the old `filter` string is named as replaced by `filters` (release
 * 1.2.0), and each filter's operator must go with its value's type (spec: Errors).
 */
export function parseSearchRequest(body: unknown): {
  query: string;
  filters: MetadataFilter[];
} {
  if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'filter')) {
    throw new ValidationFailed([
      {
        field: 'filters',
        message:
          'filter was replaced by filters (release 1.2.0): send a list of {field, operator, value}',
      },
    ]);
  }
  const req = parseShape(body);
  const errors: FieldError[] = [];
  const filters: MetadataFilter[] = [];
  (req.filters ?? []).forEach((f, i) => {
    if (f.operator === '==' && typeof f.value === 'string') {
      filters.push({ field: f.field, operator: '==', value: f.value });
    } else if (f.operator === 'in' && Array.isArray(f.value)) {
      filters.push({ field: f.field, operator: 'in', value: f.value });
    } else {
      errors.push({
        field: `filters[${i}].value`,
        message:
          f.operator === '=='
            ? 'operator == takes a string value, not a list'
            : 'operator in takes a list of strings, not a single value',
      });
    }
  });
  if (errors.length > 0) throw new ValidationFailed(errors);
  if (req.query.trim() === '') {
    throw new ValidationFailed([{ field: 'query', message: 'must not be blank' }]);
  }
  return { query: req.query, filters };
}

/** What search needs of an embedding model: the same one that wrote the collection. */
export interface QueryEmbedder {
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

/** Retrieval settings of the organization (`/v1/config`). */
export interface RetrievalSettings {
  retrievalK: number;
  /** Set when the reranker is enabled: it then keeps this many (or retrievalK). */
  rerank: { reranker: Reranker; topN: number | null } | undefined;
}

/** Candidates given to the reranker per result kept: it reorders a wider net. */
const RERANK_CANDIDATES_PER_RESULT = 4;
const MAX_CANDIDATES = 200;

/**
 * Collection search (spec: Endpoints, `POST /v1/collections/{name}/search`; ADR 0033): the
 * query embedded with the collection's own model, the nearest chunks the caller may read that
 * match the filters (all in SQL), `retrieval_k` of them, or `rerank_top_n` after the reranker.
 */
export class CollectionSearch {
  constructor(
    private readonly opts: {
      store: CollectionsStore;
      /** The embedder a generation was written with (by its `embeddingModel`). */
      embedderFor: (generation: CollectionGeneration) => Promise<QueryEmbedder>;
      settings: (organizationId: string) => Promise<RetrievalSettings>;
      /** The search condition for what a caller may read (owned or shared files). */
      readableBy: (caller: Caller) => ReadableFiles;
    },
  ) {}

  async search(
    organizationId: string,
    name: string,
    request: { query: string; filters: MetadataFilter[] },
    caller: Caller,
    /** Only these files (an agent's documents), when given. */
    onlyFiles?: readonly string[],
  ): Promise<CollectionSearchAnswer> {
    const readableByCaller = this.opts.readableBy(caller);
    const readable: ReadableFiles = onlyFiles
      ? (q) => {
          readableByCaller(q);
          void q.whereIn('f.id', [...onlyFiles]);
        }
      : readableByCaller;
    const settings = await this.opts.settings(organizationId);
    const keep = settings.rerank?.topN ?? settings.retrievalK;
    const wanted = settings.rerank
      ? Math.min(MAX_CANDIDATES, Math.max(keep, settings.retrievalK) * RERANK_CANDIDATES_PER_RESULT)
      : settings.retrievalK;
    const nearest = async (): Promise<{ generation: CollectionGeneration; hits: ChunkHit[] }> => {
      const generation = await this.opts.store.active(organizationId, name);
      if (!generation) {
        throw new ApiError(
          'collection_not_found',
          `the organization has no collection named ${name.slice(0, 100)}`,
        );
      }
      const embedder = await this.opts.embedderFor(generation);
      const [vector] = await embedder.embed([request.query]);
      if (!vector) throw new Error('the embedding model answered no vector for the query');
      const found = await this.opts.store.search(
        generation,
        vector,
        request.filters,
        readable,
        wanted,
      );
      return { generation, hits: found };
    };
    // A reindex switched and dropped the generation just read (ADR 0034): the new one answers.
    const { generation, hits: found } = await nearest().catch((err: unknown) => {
      if (isDroppedTable(err)) return nearest();
      throw err;
    });
    let hits = found;
    if (settings.rerank && hits.length > 0) {
      const ranked = await settings.rerank.reranker.rerank({
        query: request.query,
        documents: hits.map((h) => h.text),
        topN: keep,
      });
      hits = ranked.flatMap((r) => {
        const hit = hits[r.index];
        return hit ? [{ ...hit, score: r.relevanceScore }] : [];
      });
    }
    hits = hits.slice(0, keep);
    const names = await this.opts.store.fileNames([...new Set(hits.map((h) => h.fileId))]);
    return {
      collection: name,
      embedding_model: generation.embeddingModel,
      results: hits.map((h) => ({
        chunk_id: h.chunkId,
        document_id: h.fileId,
        file_name: names.get(h.fileId) ?? '',
        text: h.text,
        score: h.score,
        metadata: h.metadata,
      })),
    };
  }
}
