import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { FormError } from '../components/form-error';
import { TableHead } from '../components/list';
import { NAMESPACE } from '../i18n';
import { translationChanges } from '../settings-logic';
import type { Overrides } from '../settings-types';
import { ENGLISH, type StringKey } from '../strings';

const KEYS = Object.keys(ENGLISH) as StringKey[];

/** Overrides of the portal's strings per language, applied as soon as they are saved. */
export default function SettingsTranslations() {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const overrides = useQuery({
    queryKey: ['translations'],
    queryFn: () => api<Overrides>('/v1/translations'),
  });
  const [language, setLanguage] = useState('en');
  const [newLanguage, setNewLanguage] = useState('');
  const [filter, setFilter] = useState('');
  const [edited, setEdited] = useState<Record<string, string>>({});
  const [done, setDone] = useState('');
  const stored = overrides.data?.[language]?.[NAMESPACE] ?? {};
  const languages = [...new Set(['en', ...Object.keys(overrides.data ?? {}), language])].sort();
  const after = () => {
    setEdited({});
    void queries.invalidateQueries({ queryKey: ['translations'] });
  };
  const save = useMutation({
    mutationFn: () =>
      api<unknown>(`/v1/translations/${encodeURIComponent(language)}`, {
        method: 'PATCH',
        body: { [NAMESPACE]: translationChanges(stored, edited) },
      }),
    onSuccess: () => {
      setDone(t('translations.saved', { language }));
      after();
    },
  });
  const reset = useMutation({
    mutationFn: () =>
      api<void>(`/v1/translations/reset?language=${encodeURIComponent(language)}`, {
        method: 'POST',
      }),
    onSuccess: () => {
      setDone(t('translations.resetDone', { language }));
      after();
    },
  });
  const needle = filter.trim().toLowerCase();
  const shown = KEYS.filter(
    (k) =>
      !needle ||
      k.toLowerCase().includes(needle) ||
      ENGLISH[k].toLowerCase().includes(needle) ||
      (stored[k] ?? '').toLowerCase().includes(needle),
  );
  const pick = (l: string) => {
    setLanguage(l);
    setEdited({});
    setDone('');
  };
  return (
    <section aria-labelledby="translations-title">
      <h1 id="translations-title">{t('translations.title')}</h1>
      <p>{t('translations.lead')}</p>
      {overrides.isError && (
        <ErrorMessage error={overrides.error} onRetry={() => void overrides.refetch()} />
      )}
      <div className="filters">
        <Field label={t('translations.language')}>
          {(p) => (
            <select {...p} value={language} onChange={(e) => pick(e.target.value)}>
              {languages.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          )}
        </Field>
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (newLanguage.trim()) pick(newLanguage.trim());
            setNewLanguage('');
          }}
        >
          <Field label={t('translations.newLanguage')}>
            {(p) => (
              <input {...p} value={newLanguage} onChange={(e) => setNewLanguage(e.target.value)} />
            )}
          </Field>
          <button type="submit">{t('translations.addLanguage')}</button>
        </form>
        <Field label={t('translations.filter')}>
          {(p) => (
            <input
              {...p}
              type="search"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
            />
          )}
        </Field>
      </div>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setDone('');
          save.mutate();
        }}
      >
        <div className="row">
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? t('common.saving') : t('translations.save', { language })}
          </button>
          <button type="button" disabled={reset.isPending} onClick={() => reset.mutate()}>
            {t('translations.reset', { language })}
          </button>
        </div>
        {done && <p role="status">{done}</p>}
        <FormError error={save.error} placed={() => false} />
        {reset.isError && <ErrorMessage error={reset.error} />}
        <table>
          <TableHead
            columns={[t('translations.key'), t('translations.english'), t('translations.override')]}
          />
          <tbody>
            {shown.map((k) => (
              <tr key={k} data-key={k}>
                <td>
                  <code>{k}</code>
                </td>
                <td>{ENGLISH[k]}</td>
                <td>
                  <label className="visually-hidden" htmlFor={`override-${k}`}>
                    {t('translations.overrideOf', { key: k, language })}
                  </label>
                  <input
                    id={`override-${k}`}
                    value={edited[k] ?? stored[k] ?? ''}
                    onChange={(e) => setEdited({ ...edited, [k]: e.target.value })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </form>
    </section>
  );
}
