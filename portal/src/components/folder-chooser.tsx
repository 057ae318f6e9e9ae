import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { childrenPage, nodePath } from '../files-api';
import type { FileNode } from '../knowledge-types';
import { ErrorMessage } from './error-message';
import '../knowledge.css';

/**
 * Moves a file or folder (`POST …/{id}/move {folder_id}`): the person browses the folders they
 * read, from their root down, and moves it into the one they are in ("My files": the root).
 */
export function FolderChooser({
  node,
  onMoved,
  onClose,
}: {
  node: FileNode;
  onMoved: (moved: FileNode) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  /** The folders opened, from the root: the last is where it would move. */
  const [trail, setTrail] = useState<FileNode[]>([]);
  const here = trail.at(-1) ?? null;
  const folders = useQuery({
    queryKey: ['files', 'chooser', here?.id ?? null],
    queryFn: () => childrenPage(here?.id ?? null, 'all', null, 200),
  });
  const move = useMutation({
    mutationFn: () =>
      api<FileNode>(`${nodePath(node)}/move`, {
        method: 'POST',
        body: { folder_id: here?.id ?? null },
      }),
    onSuccess: onMoved,
  });
  // A folder cannot go into itself (the API refuses deeper cycles: folder_move_cycle).
  const choices = (folders.data?.items ?? []).filter(
    (f) => f.kind === 'folder' && f.id !== node.id,
  );

  return (
    <section className="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{t('files.moveTitle', { name: node.name })}</h2>
      <nav aria-label={t('files.moveTrail')} className="breadcrumbs">
        <ol>
          <li>
            <button type="button" onClick={() => setTrail([])} disabled={here === null}>
              {t('files.root')}
            </button>
          </li>
          {trail.map((f, i) => (
            <li key={f.id}>
              <button
                type="button"
                onClick={() => setTrail(trail.slice(0, i + 1))}
                disabled={i === trail.length - 1}
              >
                {f.name}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      {folders.isError && <ErrorMessage error={folders.error} />}
      {folders.isPending && <p>{t('app.loading')}</p>}
      {folders.data && choices.length === 0 && <p>{t('files.noSubfolders')}</p>}
      <ul className="checklist">
        {choices.map((f) => (
          <li key={f.id}>
            <button type="button" onClick={() => setTrail([...trail, f])}>
              {t('files.openFolder', { name: f.name })}
            </button>
          </li>
        ))}
      </ul>
      <div className="row">
        <button
          type="button"
          className="primary"
          disabled={move.isPending || (here?.id ?? null) === node.folder_id}
          onClick={() => move.mutate()}
        >
          {t('files.moveHere', { folder: here?.name ?? t('files.root') })}
        </button>
        <button type="button" onClick={onClose}>
          {t('common.cancel')}
        </button>
      </div>
      {move.isError && <ErrorMessage error={move.error} />}
    </section>
  );
}
