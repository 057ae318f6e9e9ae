import { api } from './api';
import type { FileList, FileNode, Scope } from './knowledge-types';

/** A node's address: `/v1/files/{id}` or `/v1/folders/{id}`. */
export const nodePath = (n: Pick<FileNode, 'kind' | 'id'>): string =>
  `/v1/${n.kind === 'file' ? 'files' : 'folders'}/${n.id}`;

/** One page of a folder's children (null: the caller's root) in a scope. */
export function childrenPage(
  folderId: string | null,
  scope: Scope,
  cursor: string | null,
  limit = 100,
): Promise<FileList> {
  const q = new URLSearchParams({ scope, limit: String(limit) });
  if (folderId) q.set('folder_id', folderId);
  if (cursor) q.set('cursor', cursor);
  return api<FileList>(`/v1/files/children?${q.toString()}`);
}

/** The most folders a breadcrumb trail climbs. */
const MAX_TRAIL = 32;

/**
 * The folders from the top the caller reads down to `folderId` (itself last). A folder above
 * one shared with the caller is not theirs to read: the trail starts below it.
 */
export async function folderTrail(folderId: string): Promise<FileNode[]> {
  const trail = [await api<FileNode>(`/v1/folders/${folderId}`)];
  for (let parent = trail[0]?.folder_id; parent && trail.length < MAX_TRAIL;) {
    let folder: FileNode;
    try {
      folder = await api<FileNode>(`/v1/folders/${parent}`);
    } catch {
      break;
    }
    trail.unshift(folder);
    parent = folder.folder_id;
  }
  return trail;
}
