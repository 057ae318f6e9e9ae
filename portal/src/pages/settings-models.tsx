import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { fieldMessageOf, FormError } from '../components/form-error';
import { ListStatus, TableHead } from '../components/list';
import { WriteOnlyChoice, type WriteOnlyMode } from '../components/write-only-choice';
import { useMe } from '../session';
import { MODEL_MODES, type CatalogueModel } from '../settings-types';
import type { StringKey } from '../strings';
import { Named } from '../components/named';

/** Error codes of the catalogue that belong to one field of the form. */
const CODE_FIELD: Record<string, string> = {
  model_exists: 'name',
  model_backend_address_invalid: 'base_url',
};
/** The catalogue table's column headers. */
const COLUMNS: StringKey[] = [
  'models.name',
  'models.mode',
  'models.baseUrl',
  'models.apiKey',
  'models.scope',
  'models.active',
  'tenants.actions',
];
const FIELDS = ['name', 'mode', 'base_url', 'backend_model', 'api_key', 'context_window'];

/** The model catalogue (can_manage_models): list, add, edit, remove; keys are write-only. */
export default function SettingsModels() {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const models = useQuery({
    queryKey: ['models'],
    queryFn: () => api<{ models: CatalogueModel[] }>('/v1/models'),
  });
  const [editing, setEditing] = useState<CatalogueModel | 'new' | null>(null);
  const [done, setDone] = useState('');
  const remove = useMutation({
    mutationFn: (m: CatalogueModel) => api<void>(`/v1/models/${m.id}`, { method: 'DELETE' }),
    onSuccess: (_r, m) => {
      setDone(t('models.removed', { name: m.name }));
      void queries.invalidateQueries({ queryKey: ['models'] });
    },
  });
  const list = models.data?.models ?? [];
  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title">{t('models.title')}</h1>
      <p>{t('models.lead')}</p>
      {done && <p role="status">{done}</p>}
      {remove.isError && <ErrorMessage error={remove.error} />}
      {editing === null ? (
        <p>
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            {t('models.add')}
          </button>
        </p>
      ) : (
        <ModelForm
          key={editing === 'new' ? 'new' : editing.id}
          model={editing === 'new' ? undefined : editing}
          onDone={(message) => {
            setEditing(null);
            setDone(message);
          }}
        />
      )}
      <ListStatus query={models} empty={list.length === 0} emptyText={t('models.empty')} />
      {list.length > 0 && (
        <table>
          <TableHead columns={COLUMNS.map((c) => t(c))} />
          <tbody>
            {list.map((m) => (
              <ModelRow
                key={m.id}
                model={m}
                onEdit={() => setEditing(m)}
                onRemove={() => {
                  if (window.confirm(t('models.removeConfirm', { name: m.name }))) {
                    remove.mutate(m);
                  }
                }}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One catalogue entry: what it is (its key only as set or none) and its actions. */
function ModelRow({
  model: m,
  onEdit,
  onRemove,
}: {
  model: CatalogueModel;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation();
  const actions = (
    <div className="row">
      <button type="button" onClick={onEdit}>
        <Named label={t('models.edit')} name={m.name} />
      </button>
      <button type="button" className="danger" onClick={onRemove}>
        <Named label={t('common.delete')} name={m.name} />
      </button>
    </div>
  );
  return (
    <tr data-model={m.name}>
      <td>
        <code>{m.name}</code>
        {m.backend_model !== m.name && <p className="help">{m.backend_model}</p>}
      </td>
      <td>{m.mode}</td>
      <td>{m.base_url ? <code>{m.base_url}</code> : t('common.none')}</td>
      <td>{m.has_api_key ? t('models.keySet') : t('models.keyNone')}</td>
      <td>{m.organization_id === null ? t('models.platformWide') : t('models.own')}</td>
      <td>{m.active ? t('common.yes') : t('common.no')}</td>
      <td>{actions}</td>
    </tr>
  );
}

function ModelForm({
  model,
  onDone,
}: {
  model: CatalogueModel | undefined;
  onDone: (message: string) => void;
}) {
  const { t } = useTranslation();
  const me = useMe();
  const queries = useQueryClient();
  const [name, setName] = useState(model?.name ?? '');
  const [mode, setMode] = useState(model?.mode ?? 'chat');
  const [baseUrl, setBaseUrl] = useState(model?.base_url ?? '');
  const [backendModel, setBackendModel] = useState(model?.backend_model ?? '');
  const [contextWindow, setContextWindow] = useState(String(model?.context_window ?? ''));
  const [active, setActive] = useState(model?.active ?? true);
  const [platformWide, setPlatformWide] = useState(false);
  const [keyMode, setKeyMode] = useState<WriteOnlyMode>(model ? 'keep' : 'replace');
  const [apiKey, setApiKey] = useState('');
  const save = useMutation({
    mutationFn: () => {
      const key =
        keyMode === 'keep'
          ? {}
          : keyMode === 'remove'
            ? { api_key: null }
            : apiKey
              ? { api_key: apiKey }
              : {};
      const common = {
        mode,
        base_url: baseUrl,
        ...(backendModel.trim() ? { backend_model: backendModel.trim() } : {}),
        context_window: contextWindow.trim() ? Number(contextWindow) : null,
        active,
        ...key,
      };
      return model
        ? api<CatalogueModel>(`/v1/models/${model.id}`, { method: 'PATCH', body: common })
        : api<CatalogueModel>('/v1/models', {
            method: 'POST',
            body: { name, ...common, ...(platformWide ? { platform_wide: true } : {}) },
          });
    },
    onSuccess: (saved) => {
      setApiKey(''); // write-only: gone from the page once sent
      void queries.invalidateQueries({ queryKey: ['models'] });
      onDone(
        model ? t('models.saved', { name: saved.name }) : t('models.added', { name: saved.name }),
      );
    },
  });
  const err = save.error;
  const at = (field: string) => {
    const code = (err as { code?: string } | null)?.code;
    return (
      fieldMessageOf(err)(field) ??
      (code && CODE_FIELD[code] === field ? (err as Error).message : undefined)
    );
  };
  return (
    <form
      noValidate
      aria-labelledby="model-form-title"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2 id="model-form-title">
        {model ? t('models.editTitle', { name: model.name }) : t('models.addTitle')}
      </h2>
      <Field label={t('models.name')} help={t('models.nameHelp')} error={at('name')}>
        {(p) => (
          <input
            {...p}
            value={name}
            readOnly={model !== undefined}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <Field label={t('models.mode')} error={at('mode')}>
        {(p) => (
          <select {...p} value={mode} onChange={(e) => setMode(e.target.value)}>
            {MODEL_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('models.baseUrl')} help={t('models.baseUrlHelp')} error={at('base_url')}>
        {(p) => (
          <input {...p} type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
        )}
      </Field>
      <Field
        label={t('models.backendModel')}
        help={t('models.backendModelHelp')}
        error={at('backend_model')}
      >
        {(p) => (
          <input {...p} value={backendModel} onChange={(e) => setBackendModel(e.target.value)} />
        )}
      </Field>
      <Field label={t('models.contextWindow')} error={at('context_window')}>
        {(p) => (
          <input
            {...p}
            type="number"
            min={1}
            value={contextWindow}
            onChange={(e) => setContextWindow(e.target.value)}
          />
        )}
      </Field>
      <fieldset className="field">
        <legend>{t('models.apiKey')}</legend>
        <p className="help">{t('models.apiKeyHelp')}</p>
        {model && (
          <WriteOnlyChoice
            name="key-mode"
            label={t('models.keyMode')}
            mode={keyMode}
            onChange={setKeyMode}
            words={(m) => t(`models.key.${m}`)}
          />
        )}
        {keyMode === 'replace' && (
          <Field label={t('models.apiKeyValue')} error={at('api_key')}>
            {(p) => (
              <input
                {...p}
                type="password"
                autoComplete="off"
                value={apiKey}
                onChange={(e) => setApiKey(e.target.value)}
              />
            )}
          </Field>
        )}
      </fieldset>
      <label className="row">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
        {t('models.active')}
      </label>
      {!model && me.platform_admin && (
        <label className="row">
          <input
            type="checkbox"
            checked={platformWide}
            onChange={(e) => setPlatformWide(e.target.checked)}
          />
          {t('models.platformWideHelp')}
        </label>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('common.saving') : model ? t('common.save') : t('models.add')}
        </button>
        <button type="button" onClick={() => onDone('')}>
          {t('common.cancel')}
        </button>
      </div>
      <FormError error={err} placed={() => FIELDS.some((f) => at(f))} />
    </form>
  );
}
