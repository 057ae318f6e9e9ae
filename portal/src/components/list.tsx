import type { InfiniteQueryObserverResult, UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from './error-message';

/** What a list page shows before its table: the error (with a retry), loading, or empty. */
export function ListStatus({
  query,
  empty,
  emptyText,
}: {
  query: UseQueryResult<unknown>;
  /** Whether the loaded list has nothing to show. */
  empty: boolean;
  emptyText: string;
}) {
  const { t } = useTranslation();
  return (
    <>
      {query.isError && <ErrorMessage error={query.error} onRetry={() => void query.refetch()} />}
      {query.isPending && <p>{t('app.loading')}</p>}
      {query.data !== undefined && empty && <p>{emptyText}</p>}
    </>
  );
}

/** A table's header row: one column header per entry (and, with `actions`, a last one named for screen readers only). */
export function TableHead({ columns, actions }: { columns: ReactNode[]; actions?: boolean }) {
  const { t } = useTranslation();
  const all = actions
    ? [...columns, <span className="visually-hidden">{t('tenants.actions')}</span>]
    : columns;
  return (
    <thead>
      <tr>
        {all.map((c, i) => (
          <th scope="col" key={i}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** "Show more" under a paginated list, while the API has a next page. */
export function LoadMore({ query }: { query: InfiniteQueryObserverResult }) {
  const { t } = useTranslation();
  if (!query.hasNextPage) return null;
  return (
    <button
      type="button"
      disabled={query.isFetchingNextPage}
      onClick={() => void query.fetchNextPage()}
    >
      {t('files.more')}
    </button>
  );
}
