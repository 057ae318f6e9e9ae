import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { fieldMessageOf, FormError } from '../components/form-error';
import { draftOf, patchOf, type Draft } from '../settings-logic';
import type { SystemConfig } from '../settings-types';

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
        <Field
          label={t('config.retrievalK')}
          help={t('config.retrievalKHelp')}
          error={at('retrieval_k')}
        >
          {(p) => (
            <input
              {...p}
              type="number"
              min={1}
              max={50}
              value={d.retrieval_k}
              onChange={(e) => set({ retrieval_k: e.target.value })}
            />
          )}
        </Field>
        <fieldset className="field">
          <legend>{t('config.reranker')}</legend>
          <Field
            label={t('config.rerankerModel')}
            help={t('config.rerankerModelHelp')}
            error={at('reranker_model')}
          >
            {(p) => (
              <input
                {...p}
                value={d.reranker_model}
                onChange={(e) => set({ reranker_model: e.target.value })}
              />
            )}
          </Field>
          <Field
            label={t('config.rerankTopN')}
            help={t('config.rerankTopNHelp')}
            error={at('rerank_top_n')}
          >
            {(p) => (
              <input
                {...p}
                type="number"
                min={1}
                max={50}
                value={d.rerank_top_n}
                onChange={(e) => set({ rerank_top_n: e.target.value })}
              />
            )}
          </Field>
          <Field
            label={t('config.rerankerEnabled')}
            help={t('config.rerankerEnabledHelp')}
            error={at('reranker_enabled')}
          >
            {(p) => (
              <input
                {...p}
                type="checkbox"
                checked={d.reranker_enabled}
                onChange={(e) => set({ reranker_enabled: e.target.checked })}
              />
            )}
          </Field>
        </fieldset>
        <Field
          label={t('config.embeddingModel')}
          help={t('config.embeddingModelHelp')}
          error={at('embedding_model')}
        >
          {(p) => (
            <input
              {...p}
              value={d.embedding_model}
              onChange={(e) => set({ embedding_model: e.target.value })}
            />
          )}
        </Field>
        <fieldset className="field">
          <legend>{t('config.serviceDesk')}</legend>
          <Field
            label={t('config.deskEnabled')}
            help={t('config.deskEnabledHelp')}
            error={at('service_desk.enabled')}
          >
            {(p) => (
              <input
                {...p}
                type="checkbox"
                checked={d.desk_enabled}
                onChange={(e) => set({ desk_enabled: e.target.checked })}
              />
            )}
          </Field>
          <Field
            label={t('config.deskGpt')}
            help={t('config.deskGptHelp')}
            error={at('service_desk.custom_gpt_id')}
          >
            {(p) => (
              <input
                {...p}
                value={d.custom_gpt_id}
                onChange={(e) => set({ custom_gpt_id: e.target.value })}
              />
            )}
          </Field>
          <Field
            label={t('config.deskDocuments')}
            help={t('config.deskDocumentsHelp')}
            error={at('service_desk.document_ids')}
          >
            {(p) => (
              <textarea
                {...p}
                value={d.document_ids}
                onChange={(e) => set({ document_ids: e.target.value })}
              />
            )}
          </Field>
        </fieldset>
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('common.saving') : t('common.save')}
        </button>
        {saved && <p role="status">{t('config.saved')}</p>}
        <FormError error={save.error} placed={() => FIELDS.some((f) => at(f))} />
      </form>
    </section>
  );
}
