import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { FormError } from '../components/form-error';
import { ToolAllowlist } from '../components/tool-allowlist';
import { WriteOnlyChoice, type WriteOnlyMode } from '../components/write-only-choice';
import type { McpServer } from '../types';

/** Error codes of the API that belong to one field of the form (spec: MCP Errors). */
const CODE_FIELD: Record<string, string> = {
  mcp_server_address_invalid: 'address',
  mcp_server_image_invalid: 'image',
  mcp_server_name_conflict: 'name',
  mcp_server_environment_not_stored: 'env',
};

/** The form's fields, as the API names them. */
const FORM_FIELDS = [
  'name',
  'display_name',
  'description',
  'address',
  'image',
  'port',
  'path',
  'env',
  'tool_allowlist',
];

interface EnvRow {
  key: number;
  name: string;
  value: string;
}

/**
 * What an edit does with the stored environment (spec: environment semantics on update): keep
 * it (env omitted), replace it whole by the rows (values typed again: they are write-only), or
 * remove every variable (an empty object).
 */
type EnvMode = WriteOnlyMode;

/** Adds a server (`/admin/mcp/new`) or changes one (`/admin/mcp/:id/edit`). */
export default function McpServerPage({ params }: { params: Record<string, string> }) {
  const { t } = useTranslation();
  const id = params.id;
  const server = useQuery({
    queryKey: ['mcp-server', id],
    queryFn: () => api<McpServer>(`/v1/mcp/servers/${id ?? ''}`),
    enabled: id !== undefined,
  });
  if (id === undefined) return <McpServerForm />;
  if (!server.data) {
    return server.isError ? (
      <ErrorMessage error={server.error} onRetry={() => void server.refetch()} />
    ) : (
      <p>{t('app.loading')}</p>
    );
  }
  return <McpServerForm server={server.data} />;
}

/** The form; environment values are write-only (sent, never shown). */
function McpServerForm({ server }: { server?: McpServer }) {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const editing = server !== undefined;
  const [runtime, setRuntime] = useState<'remote' | 'managed'>(server?.runtime ?? 'remote');
  const [name, setName] = useState(server?.name ?? '');
  const [displayName, setDisplayName] = useState(server?.display_name ?? '');
  const [description, setDescription] = useState(server?.description ?? '');
  const [address, setAddress] = useState(server?.address ?? '');
  const [image, setImage] = useState(server?.image ?? '');
  const [port, setPort] = useState(String(server?.port ?? 8080));
  const [path, setPath] = useState(server?.path ?? '/mcp');
  const [tools, setTools] = useState(server?.tool_allowlist ?? []);
  const [envMode, setEnvMode] = useState<EnvMode>(editing ? 'keep' : 'replace');
  // Editing: the stored names come back (their values never do) for the replacement.
  const [env, setEnv] = useState<EnvRow[]>(
    (server?.env ?? []).map((e, i) => ({ key: i + 1, name: e.name, value: '' })),
  );
  const [nextKey, setNextKey] = useState((server?.env.length ?? 0) + 1);

  const create = useMutation({
    mutationFn: () => {
      const common = {
        runtime,
        ...(editing ? {} : { name }),
        display_name: displayName,
        ...(description.trim()
          ? { description: description.trim() }
          : editing
            ? { description: null }
            : {}),
        tool_allowlist: tools,
      };
      const environment =
        envMode === 'keep'
          ? {}
          : envMode === 'remove'
            ? { env: {} }
            : { env: Object.fromEntries(env.filter((r) => r.name).map((r) => [r.name, r.value])) };
      const body =
        runtime === 'remote'
          ? { ...common, address }
          : { ...common, image, port: Number(port), path, ...environment };
      return editing
        ? api<McpServer>(`/v1/mcp/servers/${server.id}`, { method: 'PUT', body })
        : api<McpServer>('/v1/mcp/servers', { method: 'POST', body });
    },
    onSuccess: () => {
      // Values typed into the form are dropped: the API keeps them, the portal never shows them.
      setEnv([]);
      void queries.invalidateQueries({ queryKey: ['mcp-servers'] });
      void queries.invalidateQueries({ queryKey: ['mcp-server'] });
      navigate('/admin/mcp');
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  const fieldError = (field: string): string | undefined =>
    err?.fieldMessage(field) ??
    (err?.code && CODE_FIELD[err.code] === field ? err.message : undefined);
  return (
    <section aria-labelledby="mcp-form-title">
      <p>
        <Link href="/admin/mcp">{t('nav.mcpRegistry')}</Link>
      </p>
      <h1 id="mcp-form-title">
        {editing ? t('mcp.edit.title', { name: server.name }) : t('mcp.form.title')}
      </h1>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <fieldset className="field" disabled={editing}>
          <legend>{t('mcp.form.runtime')}</legend>
          {editing && <p className="help">{t('mcp.edit.fixed')}</p>}
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
          {(p) => (
            <input
              {...p}
              value={name}
              readOnly={editing}
              onChange={(e) => setName(e.target.value)}
            />
          )}
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
              {editing && <EnvModeChoice server={server} mode={envMode} onChange={setEnvMode} />}
              {envMode === 'replace' && (
                <>
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
                </>
              )}
            </fieldset>
          </>
        )}
        <ToolAllowlist
          serverId={server?.id}
          value={tools}
          onChange={setTools}
          error={fieldError('tool_allowlist')}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending
            ? t('common.saving')
            : editing
              ? t('mcp.edit.submit')
              : t('mcp.form.submit')}
        </button>
        <FormError error={create.error} placed={() => FORM_FIELDS.some((f) => fieldError(f))} />
      </form>
    </section>
  );
}

/** Keep, replace or remove the stored environment; the stored names are listed, never values. */
function EnvModeChoice({
  server,
  mode,
  onChange,
}: {
  server: McpServer;
  mode: EnvMode;
  onChange: (mode: EnvMode) => void;
}) {
  const { t } = useTranslation();
  return (
    <>
      <p>
        {server.env.length === 0
          ? t('mcp.edit.envNone')
          : t('mcp.edit.envStored', { names: server.env.map((e) => e.name).join(', ') })}
      </p>
      <WriteOnlyChoice
        name="env-mode"
        label={t('mcp.edit.envMode')}
        mode={mode}
        onChange={onChange}
        words={(m) => t(`mcp.edit.env.${m}`)}
      />
      {mode === 'replace' && <p className="help">{t('mcp.edit.envReplaceHelp')}</p>}
    </>
  );
}
