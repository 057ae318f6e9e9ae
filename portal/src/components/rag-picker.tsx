import { useInfiniteQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { SCOPES, type FileList, type FileNode, type Scope } from '../knowledge-types';
import { ErrorMessage } from './error-message';
import { LoadMore } from './list';
import '../knowledge.css';

/** A page of the RAG picker's files (`GET /v1/files/rag-picker`), from `cursor`. */
function ragPickerPage(scope: Scope, cursor: string | null): Promise<FileList> {
  const q = new URLSearchParams({ scope, limit: '200' });
  if (cursor) q.set('cursor', cursor);
  return api<FileList>(`/v1/files/rag-picker?${q.toString()}`);
}

/**
 * The RAG picker (spec: core-api.md, Sharing roles): the caller's own and shared files whose
 * status is `RAG Available`, as checkboxes. Chosen ids the picker does not list (no longer
 * available, or not readable by the caller) stay chosen and are named, so nothing is dropped
 * silently.
 */
export function RagPicker({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (ids: string[]) => void;
  /** The API's refusal of the chosen documents, shown with the picker. */
  error?: string | undefined;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [scope, setScope] = useState<Scope>('all');
  const [filter, setFilter] = useState('');
  const files = useInfiniteQuery({
    queryKey: ['rag-picker', scope],
    queryFn: ({ pageParam }) => ragPickerPage(scope, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
  const listed: FileNode[] = files.data?.pages.flatMap((p) => p.items) ?? [];
  const needle = filter.trim().toLowerCase();
  const shown = listed.filter((f) => !needle || f.name.toLowerCase().includes(needle));
  // Known only once every page of all the caller reads is here.
  const complete = scope === 'all' && files.data !== undefined && !files.hasNextPage;
  const unlisted = complete ? value.filter((v) => !listed.some((f) => f.id === v)) : [];
  const toggle = (fileId: string, on: boolean) =>
    onChange(on ? [...value, fileId] : value.filter((v) => v !== fileId));

  return (
    <fieldset
      className="rag-picker"
      aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
      data-testid="rag-picker"
    >
      <legend>{t('picker.legend')}</legend>
      <p id={`${id}-help`} className="help">
        {t('picker.help')}
      </p>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-scope`}>{t('picker.scope')}</label>
          <select
            id={`${id}-scope`}
            value={scope}
            onChange={(e) => setScope(e.target.value as Scope)}
          >
            {SCOPES.map((s) => (
              <option key={s} value={s}>
                {t(`files.scope.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-filter`}>{t('picker.filter')}</label>
          <input
            id={`${id}-filter`}
            type="search"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </div>
      </div>
      {files.isError && <ErrorMessage error={files.error} onRetry={() => void files.refetch()} />}
      {files.isPending && <p>{t('app.loading')}</p>}
      {files.data && shown.length === 0 && <p>{t('picker.empty')}</p>}
      <ul className="checklist">
        {shown.map((f) => (
          <li key={f.id}>
            <label>
              <input
                type="checkbox"
                checked={value.includes(f.id)}
                onChange={(e) => toggle(f.id, e.target.checked)}
              />{' '}
              {f.name}
              {f.role !== 'owner' && <span className="help"> ({t('picker.shared')})</span>}
            </label>
          </li>
        ))}
        {unlisted.map((fileId) => (
          <li key={fileId}>
            <label>
              <input type="checkbox" checked onChange={() => toggle(fileId, false)} />{' '}
              {t('picker.unlisted', { id: fileId })}
            </label>
          </li>
        ))}
      </ul>
      <LoadMore query={files} />
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
