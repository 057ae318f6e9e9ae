import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { TableHead } from '../components/list';
import { Field } from '../components/field';
import { when } from '../format';
import type { Tenant } from '../types';
import { PhaseBadge, REFRESH_MS, ServiceIndicator, tenantBusy } from './tenant-status';

const STAGES = ['Accepted', 'Namespace', 'Identity', 'Database', 'Ready'] as const;

function stageState(tenant: Tenant, stage: (typeof STAGES)[number]) {
  if (stage === 'Database' && !tenant.services.database.enabled) return 'skipped';
  if (tenant.phase === 'Ready') return 'done';
  const at = STAGES.indexOf(tenant.stage as (typeof STAGES)[number]);
  const i = STAGES.indexOf(stage);
  return i <= at ? 'done' : i === at + 1 ? 'current' : 'pending';
}

/** One tenant: its stages and conditions, refreshing while it changes; delete by typing the slug. */
export default function TenantDetail({ params }: { params: Record<string, string> }) {
  const { t } = useTranslation();
  const id = params.id ?? '';
  const record = useQuery({
    queryKey: ['tenant', id],
    queryFn: () => api<Tenant>(`/v1/admin/tenants/${encodeURIComponent(id)}`),
    // Refreshes while it changes; stops once it answers an error (404 when it is gone).
    refetchInterval: (query) =>
      query.state.status !== 'error' && query.state.data && tenantBusy(query.state.data)
        ? REFRESH_MS
        : false,
  });
  if (record.isPending) return <p>{t('app.loading')}</p>;
  if (record.isError) {
    const gone = record.error instanceof ApiError && record.error.status === 404;
    return (
      <section>
        <h1>{t('tenants.title')}</h1>
        {gone ? (
          <p role="status">{t('tenant.gone')}</p>
        ) : (
          <ErrorMessage error={record.error} onRetry={() => void record.refetch()} />
        )}
        <Link href="/admin/tenants">{t('tenant.back')}</Link>
      </section>
    );
  }
  const tenant = record.data;
  return (
    <section aria-labelledby="tenant-title">
      <p>
        <Link href="/admin/tenants">{t('tenant.back')}</Link>
      </p>
      <h1 id="tenant-title">{t('tenant.detailTitle', { slug: tenant.slug })}</h1>
      <dl className="facts">
        <dt>{t('tenants.displayName')}</dt>
        <dd>{tenant.display_name ?? t('common.none')}</dd>
        <dt>{t('tenants.phase')}</dt>
        <dd data-testid="tenant-phase">
          <PhaseBadge phase={tenant.phase} />
        </dd>
        <dt>{t('tenant.organizationId')}</dt>
        <dd>{tenant.organization_id ?? t('common.none')}</dd>
        <dt>{t('tenants.identity')}</dt>
        <dd>
          <ServiceIndicator service={tenant.services.identity} />
        </dd>
        <dt>{t('tenants.database')}</dt>
        <dd>
          <ServiceIndicator service={tenant.services.database} />
        </dd>
        <dt>{t('tenants.updated')}</dt>
        <dd>{when(tenant.updated_at, t('common.never'))}</dd>
      </dl>
      {tenantBusy(tenant) && <p className="help">{t('common.refreshing')}</p>}

      <h2>{t('tenant.stages')}</h2>
      <ol className="stages" aria-live="polite">
        {STAGES.map((stage) => {
          const state = stageState(tenant, stage);
          const word = {
            done: t('tenant.stageDone'),
            current: t('tenant.stageCurrent'),
            pending: t('tenant.stagePending'),
            skipped: t('tenant.stageSkipped'),
          }[state];
          return (
            <li key={stage} data-state={state}>
              {t(`tenant.stage.${stage}`)}: {word}
            </li>
          );
        })}
      </ol>

      <h2>{t('tenant.conditions')}</h2>
      {tenant.conditions.length === 0 ? (
        <p>{t('tenant.noConditions')}</p>
      ) : (
        <table>
          <TableHead
            columns={[
              t('tenant.condition.type'),
              t('tenant.condition.status'),
              t('tenant.condition.reason'),
              t('tenant.condition.message'),
              t('tenant.condition.since'),
            ]}
          />
          <tbody>
            {tenant.conditions.map((c) => (
              <tr key={c.type} data-condition={c.type}>
                <td>{c.type}</td>
                <td>{c.status}</td>
                <td>{c.reason}</td>
                <td>{c.message}</td>
                <td>{when(c.last_transition_time, '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {tenant.phase !== 'Deleting' && <DeleteTenant tenant={tenant} />}
      {tenant.phase === 'Deleting' && <p role="status">{t('tenant.deleting')}</p>}
    </section>
  );
}

/** Irreversible from the portal: the button stays disabled until the slug is typed exactly. */
function DeleteTenant({ tenant }: { tenant: Tenant }) {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () =>
      api<Tenant | undefined>(`/v1/admin/tenants/${tenant.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['tenant', tenant.id] });
      void queries.invalidateQueries({ queryKey: ['tenants'] });
    },
  });
  return (
    <form
      className="danger-zone"
      aria-labelledby="delete-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (typed === tenant.slug) remove.mutate();
      }}
    >
      <h2 id="delete-title">{t('tenant.delete')}</h2>
      <p>{t('tenant.deleteWarning')}</p>
      <Field label={t('tenant.deleteConfirm', { slug: tenant.slug })}>
        {(p) => (
          <input
            {...p}
            value={typed}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => setTyped(e.target.value)}
          />
        )}
      </Field>
      <button type="submit" className="danger" disabled={typed !== tenant.slug || remove.isPending}>
        {t('tenant.deleteButton')}
      </button>
      {remove.isError && <ErrorMessage error={remove.error} />}
    </form>
  );
}
