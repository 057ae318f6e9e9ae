import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { api } from '../api';
import { ListStatus, TableHead } from '../components/list';
import { Field } from '../components/field';
import { useMe } from '../session';
import { STATUS_LABEL, statusKind, type StatusKind } from '../mcp-status';
import type { McpServer } from '../types';
import { Named } from '../components/named';

/** The MCP registry of the acting organization: search, filters, indicators, live refresh. */
export default function McpServers() {
  const { t } = useTranslation();
  const me = useMe();
  const [location] = useLocation();
  const [q, setQ] = useState('');
  const [runtime, setRuntime] = useState('');
  const [status, setStatus] = useState('');
  const [credential, setCredential] = useState('');
  const list = useQuery({
    queryKey: ['mcp-servers'],
    queryFn: () => api<{ servers: McpServer[]; count: number }>('/v1/mcp/servers'),
    // A managed server that is provisioning refreshes until it reports ready.
    refetchInterval: (query) =>
      query.state.data?.servers.some((s) => s.runtime === 'managed' && s.status?.ready !== true)
        ? 3000
        : false,
  });
  const needle = q.trim().toLowerCase();
  const shown = (list.data?.servers ?? []).filter(
    (s) =>
      (!needle ||
        [s.name, s.display_name, s.description ?? ''].some((v) =>
          v.toLowerCase().includes(needle),
        )) &&
      (!runtime || s.runtime === runtime) &&
      (!status || statusKind(s) === status) &&
      (!credential || (credential === 'linked') === s.linked),
  );
  const admin = location.startsWith('/admin');
  return (
    <section aria-labelledby="mcp-title">
      <h1 id="mcp-title">{t('mcp.title')}</h1>
      <p>{t('mcp.lead')}</p>
      {admin && me.platform_admin && (
        <p>
          <Link href="/admin/mcp/new" className="button-link">
            {t('mcp.new')}
          </Link>
        </p>
      )}
      <div className="filters" role="search">
        <Field label={t('mcp.search')}>
          {(p) => <input {...p} type="search" value={q} onChange={(e) => setQ(e.target.value)} />}
        </Field>
        <Field label={t('mcp.runtime')}>
          {(p) => (
            <select {...p} value={runtime} onChange={(e) => setRuntime(e.target.value)}>
              <option value="">{t('common.all')}</option>
              <option value="managed">{t('mcp.runtime.managed')}</option>
              <option value="remote">{t('mcp.runtime.remote')}</option>
            </select>
          )}
        </Field>
        <Field label={t('mcp.status')}>
          {(p) => (
            <select {...p} value={status} onChange={(e) => setStatus(e.target.value)}>
              <option value="">{t('common.all')}</option>
              {(Object.keys(STATUS_LABEL) as StatusKind[]).map((k) => (
                <option key={k} value={k}>
                  {t(STATUS_LABEL[k])}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('mcp.credential')}>
          {(p) => (
            <select {...p} value={credential} onChange={(e) => setCredential(e.target.value)}>
              <option value="">{t('common.all')}</option>
              <option value="needs">{t('mcp.filter.needsCredential')}</option>
              <option value="linked">{t('mcp.filter.linked')}</option>
            </select>
          )}
        </Field>
      </div>
      <ListStatus query={list} empty={shown.length === 0} emptyText={t('mcp.empty')} />
      {shown.length > 0 && (
        <table>
          <TableHead
            columns={[
              t('mcp.displayName'),
              t('mcp.runtime'),
              t('mcp.status'),
              t('mcp.credential'),
              t('mcp.tools'),
              t('mcp.gatewayUrl'),
              t('mcp.actions'),
            ]}
          />
          <tbody>
            {shown.map((s) => (
              <tr key={s.id} data-name={s.name}>
                <td>
                  <strong>{s.display_name}</strong>
                  <br />
                  <code>{s.name}</code>
                  {s.description && <p className="help">{s.description}</p>}
                </td>
                <td>{t(`mcp.runtime.${s.runtime}`)}</td>
                <td>
                  <span className="badge" data-status={statusKind(s)}>
                    {t(STATUS_LABEL[statusKind(s)])}
                  </span>
                </td>
                <td>{s.linked ? t('mcp.linked') : t('mcp.notLinked')}</td>
                <td>{s.tool_allowlist.length ? s.tool_allowlist.join(', ') : t('mcp.toolsAll')}</td>
                <td>{s.gateway_url ? <code>{s.gateway_url}</code> : t('common.none')}</td>
                <td>
                  <div className="row">
                    {admin && me.platform_admin && (
                      <Link href={`/admin/mcp/${s.id}/edit`}>
                        <Named label={t('mcp.edit.link')} name={s.name} />
                      </Link>
                    )}
                    <Link href={`/mcp/${s.id}/credential`}>
                      <Named label={t('mcp.credential.link')} name={s.name} />
                    </Link>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
