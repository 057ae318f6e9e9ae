import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { ProgressBar } from '../components/progress-bar';
import { followEvents } from '../event-stream';
import { when } from '../format';
import { useMe } from '../session';
import type { Reindex } from '../settings-types';

/** The organization's collection (the one `embedding_model` of /v1/config indexes). */
const PATH = '/v1/collections/documents/reindex';

/**
 * The reindex of the organization's collection: the running one followed live (its event
 * stream), else the last one; start one again and cancel a running one (can_edit_config).
 */
export default function SettingsReindex() {
  const { t } = useTranslation();
  const me = useMe();
  const queries = useQueryClient();
  const reindex = useQuery({
    queryKey: ['reindex'],
    queryFn: () =>
      api<Reindex>(PATH).catch((err: unknown) => {
        // None has run yet, or there is nothing indexed: answers, not failures.
        if (err instanceof ApiError && err.code === 'reindex_not_found') return 'never' as const;
        if (err instanceof ApiError && err.code === 'collection_not_found') return 'empty' as const;
        throw err;
      }),
  });
  const [streamError, setStreamError] = useState<unknown>(null);
  const r = typeof reindex.data === 'object' ? reindex.data : undefined;
  const running = r?.state === 'running';
  useEffect(() => {
    if (!running) return;
    const abort = new AbortController();
    followEvents(
      `${PATH}/events`,
      (e) => queries.setQueryData(['reindex'], JSON.parse(e.data) as Reindex),
      abort.signal,
    ).catch(setStreamError);
    return () => abort.abort();
  }, [running, queries]);
  const start = useMutation({
    mutationFn: () => api<Reindex>(PATH, { method: 'POST' }),
    onSuccess: (r) => queries.setQueryData(['reindex'], r),
  });
  const cancel = useMutation({
    mutationFn: () => api<Reindex>(PATH, { method: 'DELETE' }),
    onSuccess: (r) => queries.setQueryData(['reindex'], r),
  });
  const editor = me.permissions.includes('can_edit_config') && reindex.data !== 'empty';
  return (
    <section aria-labelledby="reindex-title">
      <h1 id="reindex-title">{t('reindex.title')}</h1>
      <p>{t('reindex.lead')}</p>
      {reindex.isError && (
        <ErrorMessage error={reindex.error} onRetry={() => void reindex.refetch()} />
      )}
      {reindex.isPending && <p>{t('app.loading')}</p>}
      {reindex.data === 'never' && <p>{t('reindex.none')}</p>}
      {reindex.data === 'empty' && <p>{t('reindex.empty')}</p>}
      {r && (
        <div data-testid="reindex" data-state={r.state}>
          <dl className="facts">
            <dt>{t('reindex.state')}</dt>
            <dd>{t(`reindex.state.${r.state}`)}</dd>
            <dt>{t('reindex.model')}</dt>
            <dd>
              <code>{r.embedding_model}</code>
            </dd>
            <dt>{t('reindex.trigger')}</dt>
            <dd>{t(`reindex.trigger.${r.trigger}`)}</dd>
            <dt>{t('reindex.started')}</dt>
            <dd>{when(r.started_at, '')}</dd>
            <dt>{t('reindex.finished')}</dt>
            <dd>{when(r.finished_at, t('reindex.notYet'))}</dd>
          </dl>
          <ProgressBar
            label={t('reindex.progress')}
            done={r.completed + r.failed + r.skipped}
            total={r.total}
            text={t('reindex.counts', {
              completed: r.completed,
              failed: r.failed,
              skipped: r.skipped,
              total: r.total,
            })}
          />
          {r.reason && <p>{r.reason}</p>}
        </div>
      )}
      {streamError !== null && <ErrorMessage error={streamError} />}
      {editor && (
        <div className="row">
          {running ? (
            <button
              type="button"
              className="danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate()}
            >
              {t('reindex.cancel')}
            </button>
          ) : (
            <button type="button" disabled={start.isPending} onClick={() => start.mutate()}>
              {t('reindex.start')}
            </button>
          )}
        </div>
      )}
      {start.isError && <ErrorMessage error={start.error} />}
      {cancel.isError && <ErrorMessage error={cancel.error} />}
    </section>
  );
}
