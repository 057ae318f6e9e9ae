import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { ListStatus, TableHead } from '../components/list';
import { Field } from '../components/field';
import { when } from '../format';
import type { ApiKey, CreatedApiKey } from '../types';

/** Personal API keys: create (the secret shown once), list, revoke (spec: core-api.md). */
export default function ApiKeys() {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const keys = useQuery({
    queryKey: ['api-keys'],
    queryFn: () => api<{ api_keys: ApiKey[] }>('/v1/api-keys'),
  });
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [copy, setCopy] = useState<'copied' | 'failed' | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: { name: string }) =>
      api<CreatedApiKey>('/v1/api-keys', { method: 'POST', body }),
    onSuccess: (key) => {
      setCreated(key);
      setCopy(null);
      setName('');
      void queries.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (key: ApiKey) => api<void>(`/v1/api-keys/${key.id}`, { method: 'DELETE' }),
    onSuccess: (_v, key) => {
      setRevoked(key.name);
      void queries.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const nameError =
    create.error instanceof ApiError ? create.error.fieldMessage('name') : undefined;

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">{t('apiKeys.title')}</h1>
      <p>{t('apiKeys.lead')}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setRevoked(null);
          create.mutate({ name });
        }}
      >
        <Field label={t('apiKeys.name')} error={nameError}>
          {(p) => (
            <input
              {...p}
              value={name}
              required
              maxLength={200}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? t('common.saving') : t('apiKeys.create')}
        </button>
      </form>
      {create.isError && <ErrorMessage error={create.error} />}

      {created && (
        <div className="alert alert-warning" role="region" aria-labelledby="new-key-title">
          <h2 id="new-key-title">{t('apiKeys.created')}</h2>
          <p>
            <strong>{t('apiKeys.warning')}</strong>
          </p>
          <code className="secret" data-testid="new-api-key">
            {created.key}
          </code>
          <div className="row">
            <button
              type="button"
              onClick={() => {
                navigator.clipboard.writeText(created.key).then(
                  () => setCopy('copied'),
                  () => setCopy('failed'),
                );
              }}
            >
              {t('apiKeys.copy')}
            </button>
            <button type="button" onClick={() => setCreated(null)}>
              {t('apiKeys.done')}
            </button>
            <span role="status">
              {copy === 'copied'
                ? t('apiKeys.copied')
                : copy === 'failed'
                  ? t('apiKeys.copyFailed')
                  : ''}
            </span>
          </div>
        </div>
      )}

      <h2>{t('apiKeys.list')}</h2>
      {revoked && <p role="status">{t('apiKeys.revoked', { name: revoked })}</p>}
      {revoke.isError && <ErrorMessage error={revoke.error} />}
      <ListStatus
        query={keys}
        empty={keys.data?.api_keys.length === 0}
        emptyText={t('apiKeys.empty')}
      />
      {keys.data && keys.data.api_keys.length > 0 && (
        <table>
          <TableHead
            columns={[
              t('apiKeys.name'),
              t('apiKeys.prefix'),
              t('apiKeys.createdAt'),
              t('apiKeys.lastUsed'),
              <span className="visually-hidden">{t('tenants.actions')}</span>,
            ]}
          />
          <tbody>
            {keys.data.api_keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{when(k.created_at, t('common.never'))}</td>
                <td>{when(k.last_used_at, t('common.never'))}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`${t('apiKeys.revoke')} ${k.name}`}
                    disabled={revoke.isPending}
                    onClick={() => {
                      if (window.confirm(t('apiKeys.revokeConfirm', { name: k.name }))) {
                        revoke.mutate(k);
                      }
                    }}
                  >
                    {t('apiKeys.revoke')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
