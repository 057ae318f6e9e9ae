import type { Knex } from 'knex';
import type { Caller } from '../sharing/roles.js';
import { nodeGrantSql, withReadable } from './sharing-store.js';

export const FILE_STATUSES = ['uploaded', 'processing', 'RAG Available', 'failed'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];
export type NodeKind = 'folder' | 'file';

/** A row of `knowledge_nodes`: a folder, or a file with its blob and processing state. */
export interface NodeRow {
  id: string;
  organization_id: string;
  owner_id: string;
  parent_id: string | null;
  kind: NodeKind;
  name: string;
  blob_key: string | null;
  media_type: string | null;
  /** bigint: pg answers a string. */
  size_bytes: string | number | null;
  sha256: string | null;
  status: FileStatus | null;
  status_reason: string | null;
  chunk_count: number | null;
  created_at: Date;
  updated_at: Date;
}

/** A node as a listing answers it: the row and the caller's role rank on it. */
export type ListedNode = NodeRow & { rank: number };

export const SCOPES = ['mine', 'shared_with_me', 'all'] as const;
export type Scope = (typeof SCOPES)[number];

/** Where a page starts: after the node with this sort key (kind order, lower name, id). */
export interface Cursor {
  k: number;
  n: string;
  i: string;
}

export interface Page {
  limit: number;
  after?: Cursor;
}

const KIND_ORDER = `case n.kind when 'folder' then 0 else 1 end`;
/** Byte order of the lower-cased name: the same on every database, whatever its collation. */
const NAME_ORDER = `lower(n.name) collate "C"`;

/** Keyset order: folders first, then by name (any case), then id; a page after `after`. */
async function paged(q: Knex.QueryBuilder, db: Knex, page: Page): Promise<ListedNode[]> {
  if (page.after) {
    q.whereRaw(`(${KIND_ORDER}, ${NAME_ORDER}, n.id::text) > (?, ?, ?)`, [
      page.after.k,
      page.after.n,
      page.after.i,
    ]);
  }
  return q
    .orderByRaw(`${KIND_ORDER}, ${NAME_ORDER}, n.id::text`)
    .limit(page.limit + 1)
    .select<ListedNode[]>(db.raw('n.*'));
}

/** The sort key of a listed node: where the next page starts. */
export function cursorOf(n: NodeRow): Cursor {
  return { k: n.kind === 'folder' ? 0 : 1, n: n.name.toLowerCase(), i: n.id };
}

function scoped(q: Knex.QueryBuilder, scope: Scope, caller: Caller): void {
  if (scope === 'mine') q.where('n.owner_id', caller.userId);
  if (scope === 'shared_with_me') q.whereNot('n.owner_id', caller.userId);
}

/** `%…%` for ILIKE with the pattern's own `%`, `_` and `\` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Reads of files and folders, every one filtered by what the caller may read, in SQL. */
export class FilesStore {
  constructor(private readonly db: Knex) {}

  async get(organizationId: string, id: string, trx: Knex = this.db): Promise<NodeRow | undefined> {
    return trx<NodeRow>('knowledge_nodes').where({ id, organization_id: organizationId }).first();
  }

  /**
   * The children of a folder the caller reads with `rank`: each with the better of that rank
   * and its own grant (owner or a share on it).
   */
  async childrenOf(
    caller: Caller,
    folderId: string,
    rank: number,
    scope: Scope,
    page: Page,
  ): Promise<ListedNode[]> {
    const q = this.db('knowledge_nodes as n')
      .where({ 'n.parent_id': folderId, 'n.organization_id': caller.organizationId })
      .select(
        this.db.raw('greatest(?::int, ?) as rank', [rank, nodeGrantSql(this.db, 'n', caller)]),
      );
    scoped(q, scope, caller);
    return paged(q, this.db, page);
  }

  /**
   * The caller's root: what they read whose folder they do not (their own root nodes, and the
   * tops of what was shared with them).
   */
  async rootOf(caller: Caller, scope: Scope, page: Page): Promise<ListedNode[]> {
    const q = this.readable(caller).where((w) => {
      void w.whereNull('n.parent_id').orWhereNotExists(function () {
        void this.from('readable as p').whereRaw('p.id = n.parent_id');
      });
    });
    scoped(q, scope, caller);
    return paged(q, this.db, page);
  }

  /** Files and folders the caller reads whose name contains `text` (any case). */
  async search(
    caller: Caller,
    text: string,
    scope: Scope,
    kind: NodeKind | undefined,
    page: Page,
  ): Promise<ListedNode[]> {
    const q = this.readable(caller).whereRaw(`n.name ilike ? escape '\\'`, [containsPattern(text)]);
    if (kind) q.where('n.kind', kind);
    scoped(q, scope, caller);
    return paged(q, this.db, page);
  }

  /** Files the caller reads that are `RAG Available` (the chat's RAG picker). */
  async ragAvailable(caller: Caller, scope: Scope, page: Page): Promise<ListedNode[]> {
    const q = this.readable(caller).where({ 'n.kind': 'file', 'n.status': 'RAG Available' });
    scoped(q, scope, caller);
    return paged(q, this.db, page);
  }

  /** `knowledge_nodes n` joined with what the caller reads (their role as `rank`). */
  private readable(caller: Caller): Knex.QueryBuilder {
    const q = this.db
      .queryBuilder()
      .from('knowledge_nodes as n')
      .join('readable as r', 'r.id', 'n.id')
      .select('r.role as rank');
    return withReadable(q, this.db, caller);
  }

  async setStatus(
    id: string,
    status: 'processing' | 'RAG Available' | 'failed' | 'uploaded',
    fields: { status_reason?: string | null; chunk_count?: number | null } = {},
    trx: Knex = this.db,
  ): Promise<boolean> {
    const n = await trx('knowledge_nodes')
      .where({ id, kind: 'file' })
      .update({ status, ...fields, updated_at: trx.fn.now() });
    return n > 0;
  }
}
