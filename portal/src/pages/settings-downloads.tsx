import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { fieldMessageOf, FormError } from '../components/form-error';
import { ProgressBar } from '../components/progress-bar';
import { followEvents } from '../event-stream';
import type { ModelDownload } from '../settings-types';
import { Named } from '../components/named';

const POLL_MS = 1500;
const active = (d: ModelDownload) => d.status === 'queued' || d.status === 'running';
const base = '/v1/model-installer/downloads';

interface FileRow {
  key: number;
  url: string;
  path: string;
  sha256: string;
}

/** The model installer (can_manage_models): start a download, watch it and its log, cancel. */
export default function SettingsDownloads() {
  const { t } = useTranslation();
  const list = useQuery({
    queryKey: ['downloads'],
    queryFn: () => api<{ downloads: ModelDownload[] }>(base),
    refetchInterval: (q) => (q.state.data?.downloads.length ? POLL_MS : false),
  });
  // Downloads started here stay shown after they finish (the list holds active ones only).
  const [started, setStarted] = useState<string[]>([]);
  const ids = [...new Set([...started, ...(list.data?.downloads ?? []).map((d) => d.id)])];
  return (
    <section aria-labelledby="downloads-title">
      <h1 id="downloads-title">{t('downloads.title')}</h1>
      <p>{t('downloads.lead')}</p>
      <StartForm onStarted={(id) => setStarted([id, ...started])} />
      <h2>{t('downloads.list')}</h2>
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && ids.length === 0 && <p>{t('downloads.empty')}</p>}
      {ids.map((id) => (
        <DownloadCard key={id} id={id} />
      ))}
    </section>
  );
}

function StartForm({ onStarted }: { onStarted: (id: string) => void }) {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [model, setModel] = useState('');
  const [files, setFiles] = useState<FileRow[]>([{ key: 1, url: '', path: '', sha256: '' }]);
  const [nextKey, setNextKey] = useState(2);
  const start = useMutation({
    mutationFn: () =>
      api<ModelDownload>(base, {
        method: 'POST',
        body: {
          model,
          files: files.map((f) => ({
            url: f.url,
            path: f.path,
            ...(f.sha256.trim() ? { sha256: f.sha256.trim() } : {}),
          })),
        },
      }),
    onSuccess: (d) => {
      onStarted(d.id);
      void queries.invalidateQueries({ queryKey: ['downloads'] });
    },
  });
  const at = fieldMessageOf(start.error);
  const code = (start.error as { code?: string } | null)?.code;
  const sourceError =
    code === 'model_download_source_invalid' ? (start.error as Error).message : undefined;
  const row = (key: number, change: Partial<FileRow>) =>
    setFiles(files.map((f) => (f.key === key ? { ...f, ...change } : f)));
  return (
    <form
      noValidate
      aria-labelledby="start-title"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate();
      }}
    >
      <h2 id="start-title">{t('downloads.start')}</h2>
      <Field label={t('downloads.model')} help={t('downloads.modelHelp')} error={at('model')}>
        {(p) => <input {...p} value={model} onChange={(e) => setModel(e.target.value)} />}
      </Field>
      {files.map((f, i) => (
        <fieldset className="field" key={f.key}>
          <legend>{t('downloads.file', { index: i + 1 })}</legend>
          <Field
            label={t('downloads.url', { index: i + 1 })}
            error={at(`files.${i}.url`) ?? sourceError}
          >
            {(p) => (
              <input
                {...p}
                type="url"
                value={f.url}
                onChange={(e) => row(f.key, { url: e.target.value })}
              />
            )}
          </Field>
          <Field label={t('downloads.path', { index: i + 1 })} error={at(`files.${i}.path`)}>
            {(p) => (
              <input {...p} value={f.path} onChange={(e) => row(f.key, { path: e.target.value })} />
            )}
          </Field>
          <Field label={t('downloads.sha256', { index: i + 1 })} error={at(`files.${i}.sha256`)}>
            {(p) => (
              <input
                {...p}
                value={f.sha256}
                onChange={(e) => row(f.key, { sha256: e.target.value })}
              />
            )}
          </Field>
          {files.length > 1 && (
            <button type="button" onClick={() => setFiles(files.filter((x) => x.key !== f.key))}>
              {t('downloads.removeFile', { index: i + 1 })}
            </button>
          )}
        </fieldset>
      ))}
      <div className="row">
        <button
          type="button"
          onClick={() => {
            setFiles([...files, { key: nextKey, url: '', path: '', sha256: '' }]);
            setNextKey(nextKey + 1);
          }}
        >
          {t('downloads.addFile')}
        </button>
        <button type="submit" className="primary" disabled={start.isPending}>
          {t('downloads.startButton')}
        </button>
      </div>
      <FormError
        error={start.error}
        placed={(err) => err.fields.length > 0 || sourceError !== undefined}
      />
    </form>
  );
}

function DownloadCard({ id }: { id: string }) {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const download = useQuery({
    queryKey: ['download', id],
    queryFn: () => api<ModelDownload>(`${base}/${id}`),
    refetchInterval: (q) => (q.state.data && !active(q.state.data) ? false : POLL_MS),
  });
  const cancel = useMutation({
    mutationFn: () => api<ModelDownload>(`${base}/${id}/cancel`, { method: 'POST' }),
    onSuccess: (d) => {
      queries.setQueryData(['download', id], d);
      void queries.invalidateQueries({ queryKey: ['downloads'] });
    },
  });
  const d = download.data;
  if (!d) {
    return download.isError ? <ErrorMessage error={download.error} /> : <p>{t('app.loading')}</p>;
  }
  return (
    <article className="card" aria-labelledby={`download-${id}`} data-download={d.model}>
      <h3 id={`download-${id}`}>
        {d.model} <span className="badge">{t(`downloads.status.${d.status}`)}</span>
      </h3>
      <ProgressBar
        label={t('downloads.progress', { model: d.model })}
        done={d.bytes_done}
        total={d.bytes_total}
        text={t('downloads.bytes', {
          done: d.bytes_done,
          total: d.bytes_total ?? t('downloads.unknown'),
        })}
      />
      {d.error && (
        <p role="alert" className="field-error">
          {d.error}
        </p>
      )}
      {active(d) && (
        <button
          type="button"
          className="danger"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate()}
        >
          <Named label={t('downloads.cancel')} name={d.model} />
        </button>
      )}
      {cancel.isError && <ErrorMessage error={cancel.error} />}
      <DownloadLog id={id} live={active(d)} />
    </article>
  );
}

/** The download's log, followed as it is written (`…/logs?follow=1`, an event stream). */
function DownloadLog({ id, live }: { id: string; live: boolean }) {
  const { t } = useTranslation();
  const [lines, setLines] = useState<{ time: string; message: string }[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [following, setFollowing] = useState(live);
  useEffect(() => {
    if (!following) return;
    const abort = new AbortController();
    setLines([]);
    followEvents(
      `${base}/${id}/logs?follow=1`,
      (e) => {
        if (e.event === 'line') {
          const line = JSON.parse(e.data) as { time: string; message: string };
          setLines((prev) => [...prev, line]);
        }
      },
      abort.signal,
    )
      .catch(setError)
      .finally(() => {
        if (!abort.signal.aborted) setFollowing(false);
      });
    return () => abort.abort();
  }, [id, following]);
  return (
    <div>
      <h4>{t('downloads.log')}</h4>
      {following && <p className="help">{t('downloads.following')}</p>}
      {error !== null && <ErrorMessage error={error} />}
      {lines.length === 0 ? (
        <p>{t('downloads.noLog')}</p>
      ) : (
        <pre className="log" tabIndex={0} aria-label={t('downloads.log')}>
          {lines.map((l) => `${new Date(l.time).toLocaleTimeString()}  ${l.message}`).join('\n')}
        </pre>
      )}
    </div>
  );
}
