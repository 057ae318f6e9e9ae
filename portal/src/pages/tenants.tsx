import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { ListStatus, TableHead } from '../components/list';
import { Field } from '../components/field';
import { when } from '../format';
import type { Tenant } from '../types';
import { PhaseBadge, REFRESH_MS, ServiceIndicator, tenantBusy } from './tenant-status';

const PHASES = ['Pending', 'Provisioning', 'Ready', 'Degraded', 'Deleting'];

interface TenantList {
  tenants: Tenant[];
  count: number;
  total: number;
}

/** The tenant registry (platform admins): search, phase filter, indicators, create, open. */
export default function Tenants() {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const [phase, setPhase] = useState('');
  const params = new URLSearchParams({ limit: '200' });
  if (q.trim()) params.set('q', q.trim());
  if (phase) params.set('phase', phase);
  const list = useQuery({
    queryKey: ['tenants', q.trim(), phase],
    queryFn: () => api<TenantList>(`/v1/admin/tenants?${params.toString()}`),
    // Refreshes while a lifecycle operation runs (spec: the registry refreshes).
    refetchInterval: (query) => (query.state.data?.tenants.some(tenantBusy) ? REFRESH_MS : false),
  });
  return (
    <section aria-labelledby="tenants-title">
      <h1 id="tenants-title">{t('tenants.title')}</h1>
      <p>{t('tenants.lead')}</p>
      <CreateTenant />
      <h2>{t('tenants.title')}</h2>
      <div className="filters" role="search">
        <Field label={t('tenants.search')}>
          {(p) => <input {...p} type="search" value={q} onChange={(e) => setQ(e.target.value)} />}
        </Field>
        <Field label={t('tenants.phaseFilter')}>
          {(p) => (
            <select {...p} value={phase} onChange={(e) => setPhase(e.target.value)}>
              <option value="">{t('common.all')}</option>
              {PHASES.map((ph) => (
                <option key={ph} value={ph}>
                  {ph}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ListStatus
        query={list}
        empty={list.data?.tenants.length === 0}
        emptyText={t('tenants.empty')}
      />
      {list.data && list.data.tenants.length > 0 && (
        <table>
          <TableHead
            columns={[
              t('tenants.slug'),
              t('tenants.displayName'),
              t('tenants.phase'),
              t('tenants.identity'),
              t('tenants.database'),
              t('tenants.updated'),
              t('tenants.actions'),
            ]}
          />
          <tbody>
            {list.data.tenants.map((tenant) => (
              <tr key={tenant.id} data-slug={tenant.slug}>
                <td>{tenant.slug}</td>
                <td>{tenant.display_name ?? ''}</td>
                <td>
                  <PhaseBadge phase={tenant.phase} />
                </td>
                <td>
                  <ServiceIndicator service={tenant.services.identity} />
                </td>
                <td>
                  <ServiceIndicator service={tenant.services.database} />
                </td>
                <td>{when(tenant.updated_at, t('common.never'))}</td>
                <td>
                  <Link
                    href={`/admin/tenants/${tenant.id}`}
                    aria-label={`${t('common.open')} ${tenant.slug}`}
                  >
                    {t('common.open')}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CreateTenant() {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [slug, setSlug] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [dedicated, setDedicated] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      api<Tenant>('/v1/admin/tenants', {
        method: 'POST',
        body: {
          slug,
          ...(displayName.trim() ? { display_name: displayName.trim() } : {}),
          identity: { enabled: true },
          database: { dedicated },
        },
      }),
    onSuccess: (tenant) => {
      void queries.invalidateQueries({ queryKey: ['tenants'] });
      navigate(`/admin/tenants/${tenant.id}`);
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  return (
    <form
      aria-labelledby="new-tenant-title"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2 id="new-tenant-title">{t('tenants.new')}</h2>
      <Field
        label={t('tenants.slug')}
        help={t('tenants.slugHelp')}
        error={err?.fieldMessage('slug')}
      >
        {(p) => <input {...p} value={slug} required onChange={(e) => setSlug(e.target.value)} />}
      </Field>
      <Field label={t('tenants.displayName')} error={err?.fieldMessage('display_name')}>
        {(p) => (
          <input {...p} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
        )}
      </Field>
      <div className="field">
        <label>
          <input
            type="checkbox"
            checked={dedicated}
            onChange={(e) => setDedicated(e.target.checked)}
          />{' '}
          {t('tenants.dedicatedDatabase')}
        </label>
      </div>
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? t('common.saving') : t('common.create')}
      </button>
      {create.isError && <ErrorMessage error={create.error} />}
    </form>
  );
}
