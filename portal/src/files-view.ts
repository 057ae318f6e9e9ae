import { SCOPES, type Scope } from './knowledge-types';

/** The scope of the Files page's address (`?scope=`): `all` when absent or unknown. */
export function scopeOf(search: string): Scope {
  const s = new URLSearchParams(search).get('scope') ?? '';
  return (SCOPES as readonly string[]).includes(s) ? (s as Scope) : 'all';
}

/** The Files page's address of a folder (null: the root) in a scope (`all` is the default). */
export const folderHref = (folderId: string | null, scope: Scope): string =>
  `${folderId ? `/files/${folderId}` : '/files'}${scope === 'all' ? '' : `?scope=${scope}`}`;

/** A size in bytes as people read it (B, KB, MB; 1 KB = 1024 B); empty for none (a folder). */
export function sizeText(bytes: number | null): string {
  if (bytes === null) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
