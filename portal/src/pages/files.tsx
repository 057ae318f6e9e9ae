import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { api, apiBlobUrl, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { FileStatusBadge } from '../components/file-status';
import { FileUpload } from '../components/file-upload';
import { FolderChooser } from '../components/folder-chooser';
import { ListStatus, LoadMore, TableHead } from '../components/list';
import { OwnerActions } from '../components/owner-actions';
import { SharePanel } from '../components/share-panel';
import { childrenPage, folderTrail, nodePath } from '../files-api';
import { folderHref, scopeOf, sizeText } from '../files-view';
import { when } from '../format';
import { inProgress, SCOPES, type FileNode } from '../knowledge-types';
import { useMe } from '../session';
import '../knowledge.css';

/** How often a folder with files on their way to `RAG Available` is read again. */
const PROCESSING_REFRESH_MS = 2000;

type Panel = { kind: 'rename' | 'move' | 'share'; node: FileNode } | null;

/**
 * Files (spec: core-api.md, Files scope values, Endpoints): a folder browser with the `scope`
 * tabs, breadcrumbs, folders, uploads with progress, rename, move, delete, download, the share
 * panel, and each file's processing state, refreshed while one is on its way.
 */
export default function Files({ params }: { params: Record<string, string> }) {
  const { t } = useTranslation();
  const me = useMe();
  const queries = useQueryClient();
  const scope = scopeOf(useSearch());
  const folderId = params.folder ?? null;
  const [panel, setPanel] = useState<Panel>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [folderName, setFolderName] = useState('');
  // A panel or a confirmation belongs to the folder it was opened in.
  useEffect(() => {
    setPanel(null);
    setSaid(null);
  }, [folderId, scope]);

  const trail = useQuery({
    queryKey: ['files', 'trail', folderId],
    queryFn: () => folderTrail(folderId ?? ''),
    enabled: folderId !== null,
  });
  const list = useInfiniteQuery({
    queryKey: ['files', 'children', folderId, scope],
    queryFn: ({ pageParam }) => childrenPage(folderId, scope, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) => p.items.some(inProgress)) ? PROCESSING_REFRESH_MS : false,
  });
  const refresh = () => void queries.invalidateQueries({ queryKey: ['files'] });
  const nodes = list.data?.pages.flatMap((p) => p.items) ?? [];

  const createFolder = useMutation({
    mutationFn: (name: string) =>
      api<FileNode>('/v1/folders', { method: 'POST', body: { name, folder_id: folderId } }),
    onSuccess: (f) => {
      setFolderName('');
      setSaid(t('files.folderCreated', { name: f.name }));
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (n: FileNode) => api<void>(nodePath(n), { method: 'DELETE' }),
    onSuccess: (_v, n) => {
      setSaid(t('files.deleted', { name: n.name }));
      if (panel?.node.id === n.id) setPanel(null);
      refresh();
    },
  });
  const download = useMutation({
    mutationFn: async (n: FileNode) => {
      const url = await apiBlobUrl(`${nodePath(n)}/content`);
      if (!url) throw new Error(t('files.downloadFailed', { name: n.name }));
      const a = document.createElement('a');
      a.href = url;
      a.download = n.name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
  });
  const folderError =
    createFolder.error instanceof ApiError ? createFolder.error.fieldMessage('name') : undefined;
  const owner = (n: FileNode) =>
    n.owner_id === me.user_id
      ? t('files.you')
      : t('files.sharedAs', { role: t(`share.role.${n.role}`) });

  return (
    <section aria-labelledby="files-title">
      <h1 id="files-title">{t('files.title')}</h1>
      <p>
        {t('files.lead')} <Link href="/files/search">{t('files.searchLink')}</Link>
      </p>
      <nav aria-label={t('files.scopeLabel')}>
        <ul className="tabs">
          {SCOPES.map((s) => (
            <li key={s}>
              <Link href={folderHref(null, s)} aria-current={s === scope ? 'page' : undefined}>
                {t(`files.scope.${s}`)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <nav aria-label={t('files.breadcrumbs')} className="breadcrumbs">
        <ol>
          <li>
            <Link
              href={folderHref(null, scope)}
              aria-current={folderId === null ? 'page' : undefined}
            >
              {t('files.root')}
            </Link>
          </li>
          {(trail.data ?? []).map((f) => (
            <li key={f.id}>
              <Link
                href={folderHref(f.id, scope)}
                aria-current={f.id === folderId ? 'page' : undefined}
              >
                {f.name}
              </Link>
            </li>
          ))}
        </ol>
      </nav>
      {trail.isError && <ErrorMessage error={trail.error} />}

      <div className="toolbar">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setSaid(null);
            createFolder.mutate(folderName);
          }}
        >
          <Field label={t('files.folderName')} error={folderError}>
            {(p) => (
              <input
                {...p}
                value={folderName}
                required
                maxLength={255}
                onChange={(e) => setFolderName(e.target.value)}
              />
            )}
          </Field>
          <button type="submit" disabled={createFolder.isPending}>
            {t('files.createFolder')}
          </button>
        </form>
        <FileUpload folderId={folderId} onUploaded={refresh} />
      </div>
      {createFolder.isError && !folderError && <ErrorMessage error={createFolder.error} />}
      {remove.isError && <ErrorMessage error={remove.error} />}
      {download.isError && <ErrorMessage error={download.error} />}
      <p role="status">{said ?? ''}</p>

      {panel?.kind === 'share' && (
        <SharePanel
          base={nodePath(panel.node)}
          name={panel.node.name}
          onClose={() => setPanel(null)}
        />
      )}
      {panel?.kind === 'move' && (
        <FolderChooser
          node={panel.node}
          onClose={() => setPanel(null)}
          onMoved={(n) => {
            setPanel(null);
            setSaid(t('files.moved', { name: n.name }));
            refresh();
          }}
        />
      )}
      {panel?.kind === 'rename' && (
        <Rename
          node={panel.node}
          onClose={() => setPanel(null)}
          onRenamed={(n) => {
            setPanel(null);
            setSaid(t('files.renamed', { name: n.name }));
            refresh();
          }}
        />
      )}

      <ListStatus query={list} empty={nodes.length === 0} emptyText={t('files.empty')} />
      {list.data?.pages.some((p) => p.items.some(inProgress)) && (
        <p className="help">{t('common.refreshing')}</p>
      )}
      {nodes.length > 0 && (
        <table>
          <TableHead
            columns={[
              t('files.name'),
              t('files.status'),
              t('files.size'),
              t('files.owner'),
              t('files.updated'),
            ]}
            actions
          />
          <tbody>
            {nodes.map((n) => (
              <tr key={n.id} data-name={n.name} data-kind={n.kind}>
                <td>
                  {n.kind === 'folder' ? (
                    <Link href={folderHref(n.id, scope)}>
                      {n.name}
                      <span className="visually-hidden"> ({t('files.folder')})</span>
                    </Link>
                  ) : (
                    n.name
                  )}
                </td>
                <td>{n.kind === 'file' && <FileStatusBadge node={n} />}</td>
                <td>{sizeText(n.size_bytes)}</td>
                <td>{owner(n)}</td>
                <td>{when(n.updated_at, t('common.never'))}</td>
                <td>
                  <div className="actions">
                    {n.kind === 'file' && (
                      <button
                        type="button"
                        aria-label={t('files.downloadOf', { name: n.name })}
                        onClick={() => download.mutate(n)}
                      >
                        {t('files.download')}
                      </button>
                    )}
                    {n.role !== 'viewer' && (
                      <>
                        <button
                          type="button"
                          aria-label={t('files.renameOf', { name: n.name })}
                          onClick={() => setPanel({ kind: 'rename', node: n })}
                        >
                          {t('files.rename')}
                        </button>
                        <button
                          type="button"
                          aria-label={t('files.moveOf', { name: n.name })}
                          onClick={() => setPanel({ kind: 'move', node: n })}
                        >
                          {t('files.move')}
                        </button>
                      </>
                    )}
                    {n.role === 'owner' && (
                      <OwnerActions
                        name={n.name}
                        confirmText={t(
                          n.kind === 'folder' ? 'files.deleteFolderConfirm' : 'files.deleteConfirm',
                          { name: n.name },
                        )}
                        deleting={remove.isPending}
                        onShare={() => setPanel({ kind: 'share', node: n })}
                        onDelete={() => remove.mutate(n)}
                      />
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore query={list} />
    </section>
  );
}

/** Renames a file or folder (`PATCH {id} {name}`); the API's refusal shown at the field. */
function Rename({
  node,
  onRenamed,
  onClose,
}: {
  node: FileNode;
  onRenamed: (n: FileNode) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState(node.name);
  const rename = useMutation({
    mutationFn: () => api<FileNode>(nodePath(node), { method: 'PATCH', body: { name } }),
    onSuccess: onRenamed,
  });
  const error = rename.error instanceof ApiError ? rename.error.fieldMessage('name') : undefined;
  return (
    <section className="panel" aria-labelledby="rename-title">
      <h2 id="rename-title">{t('files.renameTitle', { name: node.name })}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate();
        }}
      >
        <Field label={t('files.newName')} error={error}>
          {(p) => (
            <input
              {...p}
              value={name}
              required
              maxLength={255}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <div className="row">
          <button type="submit" className="primary" disabled={rename.isPending}>
            {t('files.rename')}
          </button>
          <button type="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
        </div>
      </form>
      {rename.isError && !error && <ErrorMessage error={rename.error} />}
    </section>
  );
}
