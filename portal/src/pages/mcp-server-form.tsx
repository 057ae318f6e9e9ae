import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import type { McpServer } from '../types';

/** Error codes of the API that belong to one field of the form (spec: MCP Errors). */
const CODE_FIELD: Record<string, string> = {
  mcp_server_address_invalid: 'address',
  mcp_server_image_invalid: 'image',
  mcp_server_name_conflict: 'name',
};

interface EnvRow {
  key: number;
  name: string;
  value: string;
}

/** Adds a managed or remote server; environment values are write-only (sent, never shown). */
export default function McpServerForm() {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [runtime, setRuntime] = useState<'remote' | 'managed'>('remote');
  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [description, setDescription] = useState('');
  const [address, setAddress] = useState('');
  const [image, setImage] = useState('');
  const [port, setPort] = useState('8080');
  const [path, setPath] = useState('/mcp');
  const [tools, setTools] = useState('');
  const [env, setEnv] = useState<EnvRow[]>([]);
  const [nextKey, setNextKey] = useState(1);

  const create = useMutation({
    mutationFn: () => {
      const common = {
        runtime,
        name,
        display_name: displayName,
        ...(description.trim() ? { description: description.trim() } : {}),
        tool_allowlist: tools
          .split('\n')
          .map((s) => s.trim())
          .filter(Boolean),
      };
      const body =
        runtime === 'remote'
          ? { ...common, address }
          : {
              ...common,
              image,
              port: Number(port),
              path,
              env: Object.fromEntries(env.filter((r) => r.name).map((r) => [r.name, r.value])),
            };
      return api<McpServer>('/v1/mcp/servers', { method: 'POST', body });
    },
    onSuccess: () => {
      // Values typed into the form are dropped: the API keeps them, the portal never shows them.
      setEnv([]);
      void queries.invalidateQueries({ queryKey: ['mcp-servers'] });
      navigate('/admin/mcp');
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  const fieldError = (field: string): string | undefined =>
    err?.fieldMessage(field) ??
    (err?.code && CODE_FIELD[err.code] === field ? err.message : undefined);
  const fieldErrorShown = (field: string) => fieldError(field) !== undefined;
  const unplaced =
    err &&
    ![
      'name',
      'display_name',
      'description',
      'address',
      'image',
      'port',
      'path',
      'env',
      'tool_allowlist',
    ].some(fieldErrorShown);

  return (
    <section aria-labelledby="mcp-form-title">
      <p>
        <Link href="/admin/mcp">{t('nav.mcpRegistry')}</Link>
      </p>
      <h1 id="mcp-form-title">{t('mcp.form.title')}</h1>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <fieldset className="field">
          <legend>{t('mcp.form.runtime')}</legend>
          {(['remote', 'managed'] as const).map((r) => (
            <label key={r}>
              <input
                type="radio"
                name="runtime"
                value={r}
                checked={runtime === r}
                onChange={() => setRuntime(r)}
              />{' '}
              {t(`mcp.runtime.${r}`)}
            </label>
          ))}
        </fieldset>
        <Field label={t('mcp.name')} help={t('mcp.form.nameHelp')} error={fieldError('name')}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label={t('mcp.displayName')} error={fieldError('display_name')}>
          {(p) => (
            <input {...p} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
          )}
        </Field>
        <Field label={t('mcp.description')} error={fieldError('description')}>
          {(p) => (
            <textarea {...p} value={description} onChange={(e) => setDescription(e.target.value)} />
          )}
        </Field>
        {runtime === 'remote' ? (
          <Field label={t('mcp.form.address')} error={fieldError('address')}>
            {(p) => (
              <input
                {...p}
                type="url"
                value={address}
                onChange={(e) => setAddress(e.target.value)}
              />
            )}
          </Field>
        ) : (
          <>
            <Field label={t('mcp.form.image')} error={fieldError('image')}>
              {(p) => <input {...p} value={image} onChange={(e) => setImage(e.target.value)} />}
            </Field>
            <Field label={t('mcp.form.port')} error={fieldError('port')}>
              {(p) => (
                <input
                  {...p}
                  type="number"
                  value={port}
                  onChange={(e) => setPort(e.target.value)}
                />
              )}
            </Field>
            <Field label={t('mcp.form.path')} error={fieldError('path')}>
              {(p) => <input {...p} value={path} onChange={(e) => setPath(e.target.value)} />}
            </Field>
            <fieldset className="field">
              <legend>{t('mcp.form.env')}</legend>
              <p className="help">{t('mcp.form.envHelp')}</p>
              {fieldError('env') && <p className="field-error">{fieldError('env')}</p>}
              {env.map((row, i) => (
                <div className="env-row" key={row.key}>
                  <Field label={`${t('mcp.form.envName')} ${i + 1}`}>
                    {(p) => (
                      <input
                        {...p}
                        value={row.name}
                        onChange={(e) =>
                          setEnv(
                            env.map((r) =>
                              r.key === row.key ? { ...r, name: e.target.value } : r,
                            ),
                          )
                        }
                      />
                    )}
                  </Field>
                  <Field label={`${t('mcp.form.envValue')} ${i + 1}`}>
                    {(p) => (
                      <input
                        {...p}
                        type="password"
                        autoComplete="off"
                        value={row.value}
                        onChange={(e) =>
                          setEnv(
                            env.map((r) =>
                              r.key === row.key ? { ...r, value: e.target.value } : r,
                            ),
                          )
                        }
                      />
                    )}
                  </Field>
                  <button
                    type="button"
                    onClick={() => setEnv(env.filter((r) => r.key !== row.key))}
                  >
                    {t('mcp.form.envRemove', { index: i + 1 })}
                  </button>
                </div>
              ))}
              <button
                type="button"
                onClick={() => {
                  setEnv([...env, { key: nextKey, name: '', value: '' }]);
                  setNextKey(nextKey + 1);
                }}
              >
                {t('mcp.form.envAdd')}
              </button>
            </fieldset>
          </>
        )}
        <Field label={t('mcp.form.tools')} error={fieldError('tool_allowlist')}>
          {(p) => <textarea {...p} value={tools} onChange={(e) => setTools(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? t('common.saving') : t('mcp.form.submit')}
        </button>
        {unplaced && <ErrorMessage error={create.error} />}
        {err && !unplaced && (
          <p role="alert" className="field-error">
            {t('error.validation')}
          </p>
        )}
      </form>
    </section>
  );
}
