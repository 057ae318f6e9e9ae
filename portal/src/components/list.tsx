import type { UseQueryResult } from '@tanstack/react-query';
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

/** A table's header row: one column header per entry. */
export function TableHead({ columns }: { columns: ReactNode[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => (
          <th scope="col" key={i}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}
