import { type Static, Type } from '@sinclair/typebox';
import { type FieldError, ValidationFailed } from '@aiplane/lib/errors';
import { Nullable } from '@aiplane/lib/service';
import {
  type Cursor,
  cursorOf,
  FILE_STATUSES,
  type ListedNode,
  type NodeRow,
  SCOPES,
} from './files-store.js';
import { roleOfRank } from '../sharing/roles.js';
import { RoleSchema } from '../sharing/share-schemas.js';

const Uuid = Type.String({ format: 'uuid' });
/** Where a write puts a node: a folder's id, or null for the caller's root (spec: Resources). */
const FolderId = Nullable(Uuid);

export const FileNodeSchema = Type.Object(
  {
    id: Uuid,
    kind: Type.Union([Type.Literal('file'), Type.Literal('folder')]),
    name: Type.String(),
    /** The folder it is in; null at its owner's root. */
    folder_id: Nullable(Uuid),
    owner_id: Type.String(),
    /** The caller's role on it: owner of it, or the best share on it or a folder above it. */
    role: RoleSchema,
    media_type: Nullable(Type.String()),
    size_bytes: Nullable(Type.Integer()),
    sha256: Nullable(Type.String()),
    status: Nullable(Type.Union(FILE_STATUSES.map((s) => Type.Literal(s)))),
    status_reason: Nullable(Type.String()),
    chunk_count: Nullable(Type.Integer()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'FileNode' },
);
export type FileNode = Static<typeof FileNodeSchema>;

export const FileListSchema = Type.Object(
  {
    items: Type.Array(FileNodeSchema),
    count: Type.Integer(),
    /** Pass as `cursor` for the next page; null on the last page. */
    next_cursor: Nullable(Type.String()),
  },
  { title: 'FileList' },
);
export type FileList = Static<typeof FileListSchema>;

export const CreateFolderBody = Type.Object(
  { name: Type.String(), folder_id: FolderId },
  { additionalProperties: false, title: 'CreateFolder' },
);
export const MoveBody = Type.Object(
  { folder_id: FolderId },
  { additionalProperties: false, title: 'MoveNode' },
);
export const RenameBody = Type.Object(
  { name: Type.String() },
  { additionalProperties: false, title: 'RenameNode' },
);

/** The multipart form of an upload (documented; read by files-upload.ts). */
export const UploadForm = Type.Object(
  {
    file: Type.String({ contentMediaType: 'application/octet-stream' }),
    folder_id: Type.String({ description: 'A folder’s id, or `null` for the caller’s root.' }),
    name: Type.Optional(
      Type.String({ description: 'The file’s name; the part’s filename when absent.' }),
    ),
  },
  { title: 'UploadFile' },
);

const ScopeQuery = Type.Optional(Type.Union(SCOPES.map((s) => Type.Literal(s))));
const Paging = {
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
  cursor: Type.Optional(Type.String({ maxLength: 2000 })),
};
export const ChildrenQuery = Type.Object(
  {
    folder_id: Type.Optional(Type.String()),
    scope: ScopeQuery,
    ...Paging,
  },
  { additionalProperties: false },
);
export const SearchQuery = Type.Object(
  {
    q: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Optional(Type.Union([Type.Literal('file'), Type.Literal('folder')])),
    scope: ScopeQuery,
    ...Paging,
  },
  { additionalProperties: false },
);
export const PickerQuery = Type.Object(
  { scope: ScopeQuery, ...Paging },
  { additionalProperties: false },
);

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

export function nodeView(n: NodeRow, rank: number): FileNode {
  return {
    id: n.id,
    kind: n.kind,
    name: n.name,
    folder_id: n.parent_id,
    owner_id: n.owner_id,
    role: roleOfRank(rank) ?? 'viewer',
    media_type: n.media_type,
    size_bytes: n.size_bytes === null ? null : Number(n.size_bytes),
    sha256: n.sha256,
    status: n.status,
    status_reason: n.status_reason,
    chunk_count: n.chunk_count,
    created_at: n.created_at.toISOString(),
    updated_at: n.updated_at.toISOString(),
  };
}

/** A page of a listing: the rows asked for (one more was read to know a next page exists). */
export function listView(rows: ListedNode[], limit: number): FileList {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((r) => nodeView(r, Number(r.rank))),
    count: items.length,
    next_cursor:
      rows.length > limit && last
        ? Buffer.from(JSON.stringify(cursorOf(last))).toString('base64url')
        : null,
  };
}

/** The page size of `limit` (default 50, 1–200) and where it starts (`cursor`), else 422. */
export function pageOf(query: { limit?: string; cursor?: string }): {
  limit: number;
  after?: Cursor;
} {
  const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit);
  if (limit < 1 || limit > MAX_PAGE) {
    throw new ValidationFailed([{ field: 'limit', message: `must be from 1 to ${MAX_PAGE}` }]);
  }
  if (query.cursor === undefined) return { limit };
  try {
    const c = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8')) as Cursor;
    if ((c.k === 0 || c.k === 1) && typeof c.n === 'string' && typeof c.i === 'string') {
      return { limit, after: c };
    }
  } catch {
    // refused below
  }
  throw new ValidationFailed([{ field: 'cursor', message: 'is not a cursor this API gave' }]);
}

/** A file or folder name: 1–255 characters, no slash, backslash or control character, not `.` or `..`. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 255) return 'must have 1 to 255 characters';
  if (name.trim() !== name) return 'must not start or end with white space';
  if (name === '.' || name === '..') return 'must not be . or ..';
  // eslint-disable-next-line no-control-regex
  if (/[/\\\u0000-\u001f\u007f]/.test(name)) {
    return 'must not hold a slash, a backslash or a control character';
  }
  return undefined;
}

/** 422 naming `field` when `name` breaks the name rules. */
export function checkName(name: string, field = 'name'): void {
  const problem = nameProblem(name);
  if (problem) throw new ValidationFailed([{ field, message: problem }]);
}

/**
 * The spec's 1.2.0 rule: writes take `folder_id`; a body with the old `folder_path` is refused
 * with 422 naming `folder_id` (Versioning 3), before any other check.
 */
export function refuseFolderPath(body: unknown): void {
  if (body && typeof body === 'object' && 'folder_path' in body) {
    const fields: FieldError[] = [
      {
        field: 'folder_id',
        message:
          'folder_path was replaced by folder_id in release 1.2.0: send folder_id, a folder’s id (UUID) or null for the root',
      },
    ];
    throw new ValidationFailed(fields);
  }
}
