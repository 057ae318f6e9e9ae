import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { when } from '../format';
import type { McpServer } from '../types';

/**
 * The caller's own credential for one server: a static credential typed in (write-only), or
 * OAuth linking ("Connect": the browser goes to the upstream's authorization server and comes
 * back to the OAuth return page), and removal.
 */
export default function McpCredential({ params }: { params: Record<string, string> }) {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const id = params.id ?? '';
  const server = useQuery({
    queryKey: ['mcp-server', id],
    queryFn: () => api<McpServer>(`/v1/mcp/servers/${id}`),
  });
  const [secret, setSecret] = useState('');
  const [done, setDone] = useState('');
  const refresh = () => {
    void queries.invalidateQueries({ queryKey: ['mcp-server', id] });
    void queries.invalidateQueries({ queryKey: ['mcp-servers'] });
  };
  const store = useMutation({
    mutationFn: () =>
      api<void>(`/v1/mcp/servers/${id}/credential`, {
        method: 'PUT',
        body: { credential: secret },
      }),
    onSuccess: () => {
      setSecret(''); // write-only: gone from the page once stored
      setDone(t('mcp.credential.stored'));
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => api<void>(`/v1/mcp/servers/${id}/credential`, { method: 'DELETE' }),
    onSuccess: () => {
      setDone(t('mcp.credential.removed'));
      refresh();
    },
  });
  const connect = useMutation({
    mutationFn: () =>
      api<{ authorize_url: string }>(`/v1/mcp/servers/${id}/credential/oauth`, { method: 'POST' }),
    onSuccess: ({ authorize_url }) => window.location.assign(authorize_url),
  });
  const s = server.data;
  const storeError = store.error instanceof ApiError ? store.error : undefined;
  return (
    <section aria-labelledby="credential-title">
      <p>
        <Link href="/mcp">{t('nav.mcp')}</Link>
      </p>
      <h1 id="credential-title">{t('mcp.credential.title', { name: s?.display_name ?? id })}</h1>
      {server.isError && (
        <ErrorMessage error={server.error} onRetry={() => void server.refetch()} />
      )}
      {s && (
        <>
          <p data-testid="credential-state">
            {s.linked
              ? t('mcp.credential.linkedSince', {
                  used: when(s.credential_last_used_at, t('common.never')),
                })
              : t('mcp.credential.notLinked')}
          </p>
          {done && <p role="status">{done}</p>}
          <h2>{t('mcp.credential.oauth')}</h2>
          <p className="help">{t('mcp.credential.oauthHelp')}</p>
          <button
            type="button"
            className="primary"
            disabled={connect.isPending}
            onClick={() => connect.mutate()}
          >
            {t('mcp.credential.connect')}
          </button>
          {connect.isError && <ErrorMessage error={connect.error} />}
          <h2>{t('mcp.credential.static')}</h2>
          <form
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              setDone('');
              store.mutate();
            }}
          >
            <Field
              label={t('mcp.credential.value')}
              help={t('mcp.credential.valueHelp')}
              error={storeError?.fieldMessage('credential')}
            >
              {(p) => (
                <input
                  {...p}
                  type="password"
                  autoComplete="off"
                  value={secret}
                  onChange={(e) => setSecret(e.target.value)}
                />
              )}
            </Field>
            <button type="submit" disabled={store.isPending}>
              {s.linked ? t('mcp.credential.replace') : t('mcp.credential.save')}
            </button>
            {storeError && !storeError.fieldMessage('credential') && (
              <ErrorMessage error={store.error} />
            )}
          </form>
          {s.linked && (
            <p>
              <button
                type="button"
                className="danger"
                disabled={remove.isPending}
                onClick={() => {
                  setDone('');
                  remove.mutate();
                }}
              >
                {t('mcp.credential.remove')}
              </button>
            </p>
          )}
          {remove.isError && <ErrorMessage error={remove.error} />}
        </>
      )}
    </section>
  );
}
