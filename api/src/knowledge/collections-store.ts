import type { Knex } from 'knex';

/** A generation of an organization's collection: one embedding configuration (ADR 0033). */
export interface CollectionGeneration {
  id: string;
  organizationId: string;
  name: string;
  embeddingModel: string;
  /** The model's name at its catalogue backend; null for the local model (ADR 0034). */
  backendModel: string | null;
  dimensions: number;
  state: 'building' | 'active' | 'retired';
  /** `knowledge_chunks_<id without dashes>`: generated, never from input. */
  chunkTable: string;
  createdAt: Date;
  activatedAt: Date | null;
}

interface Row {
  id: string;
  organization_id: string;
  name: string;
  embedding_model: string;
  backend_model: string | null;
  dimensions: number;
  state: CollectionGeneration['state'];
  chunk_table: string;
  created_at: Date;
  activated_at: Date | null;
}

const toGeneration = (r: Row): CollectionGeneration => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  embeddingModel: r.embedding_model,
  backendModel: r.backend_model,
  dimensions: r.dimensions,
  state: r.state,
  chunkTable: r.chunk_table,
  createdAt: r.created_at,
  activatedAt: r.activated_at,
});

/** One piece of a file, ready to store: its text, metadata and embedding. */
export interface NewChunk {
  ordinal: number;
  text: string;
  metadata: Record<string, string>;
  embedding: ArrayLike<number>;
}

/** A metadata condition: `==` one value, `in` any of several (ADR 0033). */
export type MetadataFilter =
  | { field: string; operator: '=='; value: string }
  | { field: string; operator: 'in'; value: string[] };

/**
 * Which files' chunks a search may return: adds its conditions (and any CTE it needs) to the
 * search query, where the files table is aliased `f`.
 */
export type ReadableFiles = (query: Knex.QueryBuilder) => void;

export interface ChunkHit {
  chunkId: string;
  fileId: string;
  ordinal: number;
  text: string;
  metadata: Record<string, string>;
  /** Cosine similarity, 1 for the same direction. */
  score: number;
}

/** pgvector's text form of a vector. */
export function vectorLiteral(v: ArrayLike<number>): string {
  return `[${Array.from(v, (x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}

/** The largest vector an HNSW index takes (pgvector's `vector` type). */
export const MAX_DIMENSIONS = 2000;

/** PostgreSQL's undefined_table: a generation's chunk table was dropped meanwhile. */
export function isDroppedTable(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '42P01';
}

/** Table names are made here from a generation's UUID, never from input. */
function chunkTableOf(id: string): string {
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error(`not a generation id: ${id}`);
  return `knowledge_chunks_${id.replace(/-/g, '')}`;
}

/**
 * Collections and their chunks in PostgreSQL with pgvector (ADR 0033). Chunk tables carry an
 * HNSW index (cosine) on the embedding and a GIN index on the metadata; a search filters by
 * metadata and by what the caller may read in the same SQL as the nearest-neighbour order.
 */
export class CollectionsStore {
  constructor(
    private readonly db: Knex,
    /** The files table the chunks belong to (its `id` is a chunk's `file_id`). */
    private readonly filesTable: string,
  ) {}

  async active(
    organizationId: string,
    name: string,
    trx: Knex = this.db,
  ): Promise<CollectionGeneration | undefined> {
    return this.inState(organizationId, name, 'active', trx);
  }

  async building(
    organizationId: string,
    name: string,
    trx: Knex = this.db,
  ): Promise<CollectionGeneration | undefined> {
    return this.inState(organizationId, name, 'building', trx);
  }

  /** The generation of the collection in `state` (at most one is active, one building). */
  private async inState(
    organizationId: string,
    name: string,
    state: 'active' | 'building',
    trx: Knex,
  ): Promise<CollectionGeneration | undefined> {
    const row = await trx<Row>('knowledge_collections')
      .where({ organization_id: organizationId, name, state })
      .first();
    return row ? toGeneration(row) : undefined;
  }

  async get(id: string, trx: Knex = this.db): Promise<CollectionGeneration | undefined> {
    const row = await trx<Row>('knowledge_collections').where({ id }).first();
    return row ? toGeneration(row) : undefined;
  }

  /**
   * Creates a generation and its chunk table in one transaction. `state: 'active'` fails on
   * the unique index when another one is active (the caller looks first); so does a second
   * `building` one.
   */
  async create(
    organizationId: string,
    name: string,
    embeddingModel: string,
    dimensions: number,
    state: 'building' | 'active',
    opts: {
      /** The model's name at its catalogue backend (null or omitted: the local model). */
      backendModel?: string | null;
      /** Inside this transaction (a savepoint of it). */
      trx?: Knex;
    } = {},
  ): Promise<CollectionGeneration> {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      throw new Error(`embedding dimensions out of range for an HNSW index: ${dimensions}`);
    }
    return (opts.trx ?? this.db).transaction(async (trx) => {
      const [{ id } = { id: '' }] = await trx
        .raw<{ rows: { id: string }[] }>('select gen_random_uuid() as id')
        .then((r) => r.rows);
      const table = chunkTableOf(id);
      const [row] = await trx<Row>('knowledge_collections')
        .insert({
          id,
          organization_id: organizationId,
          name,
          embedding_model: embeddingModel,
          backend_model: opts.backendModel ?? null,
          dimensions,
          state,
          chunk_table: table,
          activated_at: state === 'active' ? trx.fn.now() : null,
        })
        .returning('*');
      await trx.raw(
        `create table ?? (
           id bigserial primary key,
           file_id uuid not null references ?? (id) on delete cascade,
           ordinal integer not null,
           text text not null,
           metadata jsonb not null default '{}',
           embedding vector(${dimensions}) not null,
           unique (file_id, ordinal)
         )`,
        [table, this.filesTable],
      );
      await trx.raw('create index ?? on ?? using hnsw (embedding vector_cosine_ops)', [
        `${table}_hnsw`,
        table,
      ]);
      await trx.raw('create index ?? on ?? using gin (metadata jsonb_path_ops)', [
        `${table}_metadata`,
        table,
      ]);
      return toGeneration(row as Row);
    });
  }

  /**
   * Makes `target` the active generation of its collection and retires the one before, in one
   * transaction: a search sees the old one or the new one, never neither.
   */
  async activate(
    target: CollectionGeneration,
    within: Knex = this.db,
  ): Promise<CollectionGeneration | undefined> {
    return within.transaction(async (trx) => {
      const [old] = await trx<Row>('knowledge_collections')
        .where({ organization_id: target.organizationId, name: target.name, state: 'active' })
        .update({ state: 'retired' })
        .returning('*');
      const n = await trx('knowledge_collections')
        .where({ id: target.id, state: 'building' })
        .update({ state: 'active', activated_at: trx.fn.now() });
      if (n !== 1) throw new Error(`generation ${target.id} is no longer being built`);
      return old ? toGeneration(old) : undefined;
    });
  }

  /** Drops a generation that is not active, and its chunks (inside `within` when given). */
  async drop(generation: CollectionGeneration, within: Knex = this.db): Promise<void> {
    await within.transaction(async (trx) => {
      const n = await trx('knowledge_collections')
        .where({ id: generation.id })
        .whereNot({ state: 'active' })
        .delete();
      if (n === 1) await trx.schema.dropTableIfExists(generation.chunkTable);
    });
  }

  /** The generations of retired collections (their tables are dropped after a switch). */
  async retired(): Promise<CollectionGeneration[]> {
    return (await this.db<Row>('knowledge_collections').where({ state: 'retired' })).map(
      toGeneration,
    );
  }

  /**
   * Replaces a file's chunks in a generation (a file processed again keeps no stale ones). Two
   * writers of one file's chunks (its processing and a reindex) take turns; a generation
   * dropped meanwhile (a cancelled reindex's target, a retired one) receives nothing.
   */
  async putChunks(
    generation: CollectionGeneration,
    fileId: string,
    chunks: NewChunk[],
  ): Promise<void> {
    await this.db
      .transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [
          `${generation.chunkTable}:${fileId}`,
        ]);
        await trx(generation.chunkTable).where({ file_id: fileId }).delete();
        for (let i = 0; i < chunks.length; i += 200) {
          await trx(generation.chunkTable).insert(
            chunks.slice(i, i + 200).map((c) => ({
              file_id: fileId,
              ordinal: c.ordinal,
              text: c.text,
              metadata: JSON.stringify(c.metadata),
              embedding: vectorLiteral(c.embedding),
            })),
          );
        }
      })
      .catch((err: unknown) => {
        if (!isDroppedTable(err)) throw err;
      });
  }

  async deleteChunks(generation: CollectionGeneration, fileId: string): Promise<void> {
    await this.db(generation.chunkTable).where({ file_id: fileId }).delete();
  }

  /** The current names of files, by id. */
  async fileNames(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db(this.filesTable).whereIn('id', ids).select('id', 'name');
    return new Map(rows.map((r: { id: string; name: string }) => [r.id, r.name]));
  }

  /**
   * The `limit` chunks nearest `query` (cosine) among files the caller may read (`readable`,
   * on the files table aliased `f`) whose metadata matches every filter: one statement, the
   * HNSW index walked with pgvector's iterative scan so filtered-out rows do not shorten the
   * answer.
   */
  async search(
    generation: CollectionGeneration,
    query: ArrayLike<number>,
    filters: MetadataFilter[],
    readable: ReadableFiles,
    limit: number,
  ): Promise<ChunkHit[]> {
    const vector = vectorLiteral(query);
    return this.db.transaction(async (trx) => {
      await trx.raw('set local hnsw.iterative_scan = relaxed_order');
      await trx.raw(`set local hnsw.ef_search = ${Math.max(40, Math.min(1000, limit * 4))}`);
      const q = trx({ c: generation.chunkTable })
        .join({ f: this.filesTable }, 'f.id', 'c.file_id')
        .select(
          'c.id',
          'c.file_id',
          'c.ordinal',
          'c.text',
          'c.metadata',
          trx.raw('c.embedding <=> ?::vector as distance', [vector]),
        );
      readable(q);
      for (const f of filters) {
        const values = f.operator === '==' ? [f.value] : f.value;
        // Containment uses the GIN index; `in` is an OR of containments.
        void q.where((w) => {
          for (const v of values)
            void w.orWhereRaw('c.metadata @> ?::jsonb', [JSON.stringify({ [f.field]: v })]);
        });
      }
      // Ordered by the distance expression itself, so the HNSW index serves the order.
      const rows = (await q.orderByRaw('c.embedding <=> ?::vector', [vector]).limit(limit)) as {
        id: string;
        file_id: string;
        ordinal: number;
        text: string;
        metadata: Record<string, string>;
        distance: number;
      }[];
      // relaxed_order may return neighbours slightly out of order: sort what came back.
      return rows
        .map((r) => ({
          chunkId: String(r.id),
          fileId: r.file_id,
          ordinal: r.ordinal,
          text: r.text,
          metadata: r.metadata,
          score: 1 - Number(r.distance),
        }))
        .sort((a, b) => b.score - a.score);
    });
  }
}
