import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { RagPicker } from '../components/rag-picker';
import type { Agent, CatalogueModel } from '../knowledge-types';
import { useMe } from '../session';
import type { McpServer } from '../types';
import '../knowledge.css';

interface Draft {
  name: string;
  description: string;
  instructions: string;
  model: string;
  mcp_server_ids: string[];
  document_ids: string[];
}
const EMPTY: Draft = {
  name: '',
  description: '',
  instructions: '',
  model: '',
  mcp_server_ids: [],
  document_ids: [],
};
const draftOf = (a: Agent): Draft => ({
  name: a.name,
  description: a.description ?? '',
  instructions: a.instructions ?? '',
  model: a.model ?? '',
  mcp_server_ids: a.mcp_server_ids,
  document_ids: a.document_ids,
});
const bodyOf = (d: Draft) => ({
  name: d.name,
  description: d.description || null,
  instructions: d.instructions || null,
  model: d.model || null,
  mcp_server_ids: d.mcp_server_ids,
  document_ids: d.document_ids,
});

/**
 * Creates (`/agents/new`) or edits (`/agents/{id}`) an agent: name, description, instructions,
 * the model from the catalogue, MCP servers from the organization's registry and documents from
 * the RAG picker. The API's refusals are shown at their field.
 */
export default function AgentForm({ params }: { params: Record<string, string> }) {
  const { t } = useTranslation();
  const me = useMe();
  const [, navigate] = useLocation();
  const queries = useQueryClient();
  const id = params.id;
  const editing = id !== undefined && id !== 'new';
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [saved, setSaved] = useState(false);
  const agent = useQuery({
    queryKey: ['agents', id],
    queryFn: () => api<Agent>(`/v1/agents/${id}`),
    enabled: editing,
  });
  useEffect(() => {
    if (agent.data) setDraft(draftOf(agent.data));
  }, [agent.data]);
  const set = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const save = useMutation({
    mutationFn: () =>
      editing
        ? api<Agent>(`/v1/agents/${id}`, { method: 'PUT', body: bodyOf(draft) })
        : api<Agent>('/v1/agents', { method: 'POST', body: bodyOf(draft) }),
    onSuccess: (a) => {
      void queries.invalidateQueries({ queryKey: ['agents'] });
      if (editing) setSaved(true);
      else navigate('/agents');
      setDraft(draftOf(a));
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const fieldError = (field: string) => err?.fieldMessage(field);
  const serversError =
    fieldError('mcp_server_ids') ??
    (err?.code === 'agent_mcp_server_not_in_organization' ? err.message : undefined);
  const atField = [
    'name',
    'description',
    'instructions',
    'model',
    'mcp_server_ids',
    'document_ids',
  ];
  const shownAtField =
    err !== undefined &&
    (err.fields.some((f) => atField.includes(f.field.split('.')[0] ?? '')) ||
      serversError !== undefined);

  if (editing && agent.isError) {
    return (
      <section aria-labelledby="agent-title">
        <h1 id="agent-title">{t('agents.editTitle')}</h1>
        <ErrorMessage error={agent.error} onRetry={() => void agent.refetch()} />
        <Link href="/agents">{t('agents.back')}</Link>
      </section>
    );
  }
  return (
    <section aria-labelledby="agent-title">
      <h1 id="agent-title">{editing ? t('agents.editTitle') : t('agents.newTitle')}</h1>
      <p>
        <Link href="/agents">{t('agents.back')}</Link>
      </p>
      {editing && agent.isPending ? (
        <p>{t('app.loading')}</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <Field label={t('agents.name')} error={fieldError('name')}>
            {(p) => (
              <input
                {...p}
                value={draft.name}
                required
                maxLength={200}
                onChange={(e) => set({ name: e.target.value })}
              />
            )}
          </Field>
          <Field label={t('agents.description')} error={fieldError('description')}>
            {(p) => (
              <input
                {...p}
                value={draft.description}
                maxLength={500}
                onChange={(e) => set({ description: e.target.value })}
              />
            )}
          </Field>
          <Field
            label={t('agents.instructions')}
            help={t('agents.instructionsHelp')}
            error={fieldError('instructions')}
          >
            {(p) => (
              <textarea
                {...p}
                rows={6}
                value={draft.instructions}
                maxLength={32000}
                onChange={(e) => set({ instructions: e.target.value })}
              />
            )}
          </Field>
          <ModelField
            value={draft.model}
            onChange={(model) => set({ model })}
            error={fieldError('model')}
            catalogue={me.permissions.includes('can_manage_models')}
          />
          <ServerChoice
            value={draft.mcp_server_ids}
            onChange={(ids) => set({ mcp_server_ids: ids })}
            error={serversError}
          />
          <RagPicker
            value={draft.document_ids}
            onChange={(ids) => set({ document_ids: ids })}
            error={fieldError('document_ids')}
          />
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? t('common.saving') : editing ? t('agents.save') : t('agents.create')}
          </button>
        </form>
      )}
      {save.isError && !shownAtField && <ErrorMessage error={save.error} />}
      {save.isError && shownAtField && (
        <p role="alert" className="field-error">
          {t('error.validation')}
        </p>
      )}
      <p role="status">{saved ? t('agents.saved', { name: draft.name }) : ''}</p>
    </section>
  );
}

/**
 * The agent's model: a choice among the catalogue's chat models when the caller may read the
 * catalogue (can_manage_models), else its name typed (the messages API resolves it).
 */
function ModelField({
  value,
  onChange,
  error,
  catalogue,
}: {
  value: string;
  onChange: (model: string) => void;
  error: string | undefined;
  catalogue: boolean;
}) {
  const { t } = useTranslation();
  const models = useQuery({
    queryKey: ['models'],
    queryFn: () => api<{ models: CatalogueModel[] }>('/v1/models'),
    enabled: catalogue,
  });
  const chat = (models.data?.models ?? []).filter((m) => m.mode === 'chat');
  if (!catalogue || models.isError) {
    return (
      <>
        {models.isError && <ErrorMessage error={models.error} />}
        <Field label={t('agents.model')} help={t('agents.modelTyped')} error={error}>
          {(p) => (
            <input
              {...p}
              value={value}
              maxLength={200}
              onChange={(e) => onChange(e.target.value)}
            />
          )}
        </Field>
      </>
    );
  }
  return (
    <Field label={t('agents.model')} help={t('agents.modelHelp')} error={error}>
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{t('agents.noModel')}</option>
          {value && !chat.some((m) => m.name === value) && <option value={value}>{value}</option>}
          {chat.map((m) => (
            <option key={m.id} value={m.name}>
              {m.name}
              {m.active ? '' : ` (${t('agents.inactive')})`}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** The MCP servers of the organization's registry the agent's tools come from. */
function ServerChoice({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (ids: string[]) => void;
  error: string | undefined;
}) {
  const { t } = useTranslation();
  const id = useId();
  const servers = useQuery({
    queryKey: ['mcp-servers'],
    queryFn: () => api<{ servers: McpServer[] }>('/v1/mcp/servers'),
  });
  const all = servers.data?.servers ?? [];
  return (
    <fieldset aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{t('agents.servers')}</legend>
      {servers.isError && (
        <ErrorMessage error={servers.error} onRetry={() => void servers.refetch()} />
      )}
      {servers.isPending && <p>{t('app.loading')}</p>}
      {servers.data && all.length === 0 && <p>{t('agents.noServers')}</p>}
      <ul className="checklist">
        {all.map((s) => (
          <li key={s.id}>
            <label>
              <input
                type="checkbox"
                checked={value.includes(s.id)}
                onChange={(e) =>
                  onChange(e.target.checked ? [...value, s.id] : value.filter((v) => v !== s.id))
                }
              />{' '}
              {s.display_name} <code>{s.name}</code>
            </label>
          </li>
        ))}
        {value
          .filter((v) => servers.data && !all.some((s) => s.id === v))
          .map((v) => (
            <li key={v}>
              <label>
                <input
                  type="checkbox"
                  checked
                  onChange={() => onChange(value.filter((x) => x !== v))}
                />{' '}
                {t('agents.unknownServer', { id: v })}
              </label>
            </li>
          ))}
      </ul>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
