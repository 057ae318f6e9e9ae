import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FileNode } from '../knowledge-types';
import { uploadFile } from '../upload';
import { errorText } from './error-message';
import { Field } from './field';
import '../knowledge.css';

interface Upload {
  key: number;
  name: string;
  /** Fraction of the bytes sent, 0 to 1. */
  sent: number;
  state: 'sending' | 'done' | 'failed';
  error?: string;
}

/**
 * Uploads the chosen files into a folder one after the other, each with a progress bar of the
 * bytes sent (XMLHttpRequest upload events) and the API's answer in words.
 */
export function FileUpload({
  folderId,
  onUploaded,
}: {
  folderId: string | null;
  onUploaded: (file: FileNode) => void;
}) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [busy, setBusy] = useState(false);
  const next = useRef(0);
  const change = (key: number, patch: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...patch } : u)));

  async function send(files: File[]) {
    setBusy(true);
    const started = files.map((f) => ({
      key: next.current++,
      name: f.name,
      sent: 0,
      state: 'sending' as const,
    }));
    setUploads(started);
    for (const [i, file] of files.entries()) {
      const key = started[i]!.key;
      try {
        const made = await uploadFile(file, folderId, (sent) => change(key, { sent }));
        change(key, { sent: 1, state: 'done' });
        onUploaded(made);
      } catch (err) {
        change(key, { state: 'failed', error: errorText(err, t) });
      }
    }
    setBusy(false);
    if (input.current) input.current.value = '';
  }

  return (
    <div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const files = [...(input.current?.files ?? [])];
          if (files.length > 0) void send(files);
        }}
      >
        <Field label={t('files.uploadLabel')}>
          {(p) => <input {...p} ref={input} type="file" multiple required />}
        </Field>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t('files.uploading') : t('files.upload')}
        </button>
      </form>
      {uploads.length > 0 && (
        <ul className="uploads" aria-label={t('files.uploads')}>
          {uploads.map((u) => (
            <li key={u.key} data-upload={u.name} data-state={u.state}>
              <span>{u.name}</span>{' '}
              <progress
                max={100}
                value={Math.round(u.sent * 100)}
                aria-label={t('files.progressOf', { name: u.name })}
              />{' '}
              <span>
                {u.state === 'failed'
                  ? t('files.uploadFailed')
                  : u.state === 'done'
                    ? t('files.uploaded')
                    : t('files.percent', { percent: Math.round(u.sent * 100) })}
              </span>
              {u.error && (
                <p role="alert" className="field-error">
                  {u.error}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <p role="status" className="visually-hidden">
        {uploads.filter((u) => u.state === 'done').length > 0
          ? t('files.uploadedCount', { count: uploads.filter((u) => u.state === 'done').length })
          : ''}
      </p>
    </div>
  );
}
