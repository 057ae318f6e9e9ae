import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { fieldMessageOf, FormError } from '../components/form-error';
import { draftOf, patchOf, type Draft } from '../settings-logic';
import type { SystemConfig } from '../settings-types';
import type { StringKey } from '../strings';

/** A control of the form: the draft's key, the API's field, its words and its kind. */
interface Control {
  key: keyof Draft;
  field: string;
  label: StringKey;
  help: StringKey;
  kind: 'text' | 'number' | 'checkbox' | 'lines';
}
const GROUPS: { legend?: StringKey; controls: Control[] }[] = [
  {
    controls: [
      {
        key: 'retrieval_k',
        field: 'retrieval_k',
        label: 'config.retrievalK',
        help: 'config.retrievalKHelp',
        kind: 'number',
      },
    ],
  },
  {
    legend: 'config.reranker',
    controls: [
      {
        key: 'reranker_model',
        field: 'reranker_model',
        label: 'config.rerankerModel',
        help: 'config.rerankerModelHelp',
        kind: 'text',
      },
      {
        key: 'rerank_top_n',
        field: 'rerank_top_n',
        label: 'config.rerankTopN',
        help: 'config.rerankTopNHelp',
        kind: 'number',
      },
      {
        key: 'reranker_enabled',
        field: 'reranker_enabled',
        label: 'config.rerankerEnabled',
        help: 'config.rerankerEnabledHelp',
        kind: 'checkbox',
      },
    ],
  },
  {
    controls: [
      {
        key: 'embedding_model',
        field: 'embedding_model',
        label: 'config.embeddingModel',
        help: 'config.embeddingModelHelp',
        kind: 'text',
      },
    ],
  },
  {
    legend: 'config.serviceDesk',
    controls: [
      {
        key: 'desk_enabled',
        field: 'service_desk.enabled',
        label: 'config.deskEnabled',
        help: 'config.deskEnabledHelp',
        kind: 'checkbox',
      },
      {
        key: 'custom_gpt_id',
        field: 'service_desk.custom_gpt_id',
        label: 'config.deskGpt',
        help: 'config.deskGptHelp',
        kind: 'text',
      },
      {
        key: 'document_ids',
        field: 'service_desk.document_ids',
        label: 'config.deskDocuments',
        help: 'config.deskDocumentsHelp',
        kind: 'lines',
      },
    ],
  },
];
const FIELDS = [
  'retrieval_k',
  'rerank_top_n',
  'reranker_enabled',
  'reranker_model',
  'embedding_model',
  'service_desk',
];

/** `GET`/`PATCH /v1/config` (can_edit_config): the rules are the API's, shown at the field. */
export default function SettingsConfiguration() {
  const { t } = useTranslation();
  const config = useQuery({
    queryKey: ['config'],
    queryFn: () => api<SystemConfig>('/v1/config'),
  });
  if (!config.data) {
    return (
      <section aria-labelledby="config-title">
        <h1 id="config-title">{t('config.title')}</h1>
        {config.isError ? (
          <ErrorMessage error={config.error} onRetry={() => void config.refetch()} />
        ) : (
          <p>{t('app.loading')}</p>
        )}
      </section>
    );
  }
  return <ConfigForm stored={config.data} />;
}

function ConfigForm({ stored }: { stored: SystemConfig }) {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [d, setD] = useState(() => draftOf(stored));
  const [saved, setSaved] = useState(false);
  const set = (change: Partial<Draft>) => {
    setSaved(false);
    setD({ ...d, ...change });
  };
  const save = useMutation({
    mutationFn: () =>
      api<SystemConfig>('/v1/config', { method: 'PATCH', body: patchOf(stored, d) }),
    onSuccess: (c) => {
      queries.setQueryData(['config'], c);
      setD(draftOf(c));
      setSaved(true);
    },
  });
  const at = fieldMessageOf(save.error);
  /** One control of the form: its label, help and the API's error for its field. */
  const control = (c: Control) => (
    <Field key={c.key} label={t(c.label)} help={t(c.help)} error={at(c.field)}>
      {(p) =>
        c.kind === 'checkbox' ? (
          <input
            {...p}
            type="checkbox"
            checked={d[c.key] as boolean}
            onChange={(e) => set({ [c.key]: e.target.checked })}
          />
        ) : c.kind === 'lines' ? (
          <textarea
            {...p}
            value={d[c.key] as string}
            onChange={(e) => set({ [c.key]: e.target.value })}
          />
        ) : (
          <input
            {...p}
            {...(c.kind === 'number' ? { type: 'number', min: 1, max: 50 } : {})}
            value={d[c.key] as string}
            onChange={(e) => set({ [c.key]: e.target.value })}
          />
        )
      }
    </Field>
  );
  return (
    <section aria-labelledby="config-title">
      <h1 id="config-title">{t('config.title')}</h1>
      <p>{t('config.lead')}</p>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        {GROUPS.map((g) =>
          g.legend ? (
            <fieldset className="field" key={g.legend}>
              <legend>{t(g.legend)}</legend>
              {g.controls.map(control)}
            </fieldset>
          ) : (
            g.controls.map(control)
          ),
        )}
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('common.saving') : t('common.save')}
        </button>
        {saved && <p role="status">{t('config.saved')}</p>}
        <FormError error={save.error} placed={() => FIELDS.some((f) => at(f))} />
      </form>
    </section>
  );
}
