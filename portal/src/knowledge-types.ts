// The API's answers for files, folders, shares and agents as the portal reads them (the API's
// schemas: api/src/knowledge/files-schemas.ts, api/src/sharing/share-schemas.ts,
// api/src/agents/routes.ts).

export type Role = 'viewer' | 'editor' | 'owner';
export const ROLES: readonly Role[] = ['viewer', 'editor', 'owner'];
export type TargetType = 'user' | 'group';

/** A file's processing states, exactly as the API names them. */
export const FILE_STATUSES = ['uploaded', 'processing', 'RAG Available', 'failed'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

export const SCOPES = ['all', 'mine', 'shared_with_me'] as const;
export type Scope = (typeof SCOPES)[number];

export interface FileNode {
  id: string;
  kind: 'file' | 'folder';
  name: string;
  folder_id: string | null;
  owner_id: string;
  role: Role;
  media_type: string | null;
  size_bytes: number | null;
  status: FileStatus | null;
  status_reason: string | null;
  chunk_count: number | null;
  created_at: string;
  updated_at: string;
}

export interface FileList {
  items: FileNode[];
  count: number;
  next_cursor: string | null;
}

export interface Share {
  target_type: TargetType;
  target_id: string;
  role: Role;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface Agent {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  mcp_server_ids: string[];
  document_ids: string[];
  created_by: string;
  role: Role;
  created_at: string;
  updated_at: string;
}

/** A model catalogue entry (`GET /v1/models`, can_manage_models), as far as the portal reads it. */
export interface CatalogueModel {
  id: string;
  name: string;
  mode: string;
  active: boolean;
}

export interface SearchHit {
  chunk_id: string;
  document_id: string;
  file_name: string;
  text: string;
  score: number;
}

/** A file still on its way to `RAG Available` or `failed`: its folder is refreshed meanwhile. */
export const inProgress = (n: FileNode): boolean =>
  n.status === 'uploaded' || n.status === 'processing';
