import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import type { SearchHit } from '../knowledge-types';
import '../knowledge.css';

/** The collection of the organization's files (docs/adr/0033). */
const COLLECTION = 'documents';

/**
 * Search in the documents the caller may read (`POST /v1/collections/documents/search`): the
 * passages nearest the question, best first.
 */
export default function FilesSearch() {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const search = useMutation({
    mutationFn: (q: string) =>
      api<{ embedding_model: string; results: SearchHit[] }>(
        `/v1/collections/${COLLECTION}/search`,
        { method: 'POST', body: { query: q } },
      ),
  });
  const error = search.error instanceof ApiError ? search.error.fieldMessage('query') : undefined;
  const results = search.data?.results;
  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">{t('search.title')}</h1>
      <p>
        {t('search.lead')} <Link href="/files">{t('search.back')}</Link>
      </p>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          search.mutate(query);
        }}
      >
        <Field label={t('search.query')} error={error}>
          {(p) => (
            <input
              {...p}
              type="search"
              value={query}
              required
              maxLength={8000}
              onChange={(e) => setQuery(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="primary" disabled={search.isPending}>
          {t('common.search')}
        </button>
      </form>
      {search.isError && !error && <ErrorMessage error={search.error} />}
      {results && (
        <>
          <h2>{t('search.results', { count: results.length })}</h2>
          {results.length === 0 && <p>{t('search.none')}</p>}
          <ol>
            {results.map((r) => (
              <li key={r.chunk_id} className="hit" data-file={r.file_name}>
                <strong>{r.file_name}</strong>{' '}
                <span className="help">{t('search.score', { score: r.score.toFixed(3) })}</span>
                <p>{r.text}</p>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
