import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api';

/** Any failure in words a person can act on (never a blank page). */
export function errorText(err: unknown, t: TFunction): string {
  if (!(err instanceof ApiError)) {
    return t('error.generic', { message: err instanceof Error ? err.message : String(err) });
  }
  const message = err.code ? `${err.message} (${err.code})` : err.message;
  if (err.status === 0) return t('error.network');
  if (err.status === 401) return t('error.unauthorized');
  if (err.status === 403) return t('error.forbidden', { message });
  if (err.status === 404) return t('error.notFound', { message });
  if (err.status === 422) return t('error.validation');
  if (err.status >= 500) return t('error.server', { status: err.status, message });
  return t('error.generic', { message });
}

export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const fields = error instanceof ApiError ? error.fields : [];
  return (
    <div role="alert" className="alert alert-error">
      <p>{errorText(error, t)}</p>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={`${f.field}:${f.message}`}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('error.retry')}
        </button>
      )}
    </div>
  );
}
