import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { fieldMessageOf, FormError } from '../components/form-error';
import { colorInputValue, fontsOf } from '../settings-logic';
import type { LogoInfo } from '../settings-types';
import { themeVariables, type Theme } from '../theme';

const SCHEMES = ['light', 'dark'] as const;

/** The theme's variables on one element (through the CSSOM: the CSP allows no inline style). */
function Preview({ theme, scheme }: { theme: Theme; scheme: 'light' | 'dark' }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    for (const [name, value] of Object.entries(themeVariables(theme, scheme))) {
      el.style.setProperty(name, value);
    }
  }, [theme, scheme]);
  return (
    <div ref={ref} className="theme-preview" data-testid={`preview-${scheme}`}>
      <p className="preview-title">{theme.product_name}</p>
      <p>{t('branding.previewText')}</p>
      <p className="preview-muted">{t('branding.previewMuted')}</p>
      <div className="row">
        <span className="preview-primary">{t('branding.previewPrimary')}</span>
        <span className="preview-accent">{t('branding.previewAccent')}</span>
        <span className="preview-danger">{t('branding.previewDanger')}</span>
      </div>
    </div>
  );
}

/** The branding editor: the theme with a live preview, and the logo (can_edit_config). */
export default function SettingsBranding() {
  const { t } = useTranslation();
  const theme = useQuery({ queryKey: ['theme'], queryFn: () => api<Theme>('/v1/branding/theme') });
  return (
    <section aria-labelledby="branding-title">
      <h1 id="branding-title">{t('branding.title')}</h1>
      {theme.isError && <ErrorMessage error={theme.error} onRetry={() => void theme.refetch()} />}
      {theme.data && <ThemeEditor stored={theme.data} />}
      <LogoEditor />
    </section>
  );
}

function ThemeEditor({ stored }: { stored: Theme }) {
  const { t } = useTranslation();
  // The API's own list (its OpenAPI document is public and read once).
  const openapi = useQuery({
    queryKey: ['openapi'],
    queryFn: async () => (await fetch('/openapi.json')).json() as Promise<unknown>,
    staleTime: Infinity,
  });
  const queries = useQueryClient();
  const [draft, setDraft] = useState(stored);
  const [done, setDone] = useState('');
  const applied = (saved: Theme, message: string) => {
    queries.setQueryData(['theme'], saved);
    setDraft(saved);
    setDone(message);
  };
  const save = useMutation({
    mutationFn: () => api<Theme>('/v1/branding/theme', { method: 'PUT', body: draft }),
    onSuccess: (saved) => applied(saved, t('branding.saved')),
  });
  const reset = useMutation({
    mutationFn: () => api<Theme>('/v1/branding/theme/reset', { method: 'POST' }),
    onSuccess: (saved) => applied(saved, t('branding.resetDone')),
  });
  const at = fieldMessageOf(save.error);
  const change = (next: Theme) => {
    setDone('');
    setDraft(next);
  };
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <Field label={t('branding.productName')} error={at('product_name')}>
        {(p) => (
          <input
            {...p}
            value={draft.product_name}
            onChange={(e) => change({ ...draft, product_name: e.target.value })}
          />
        )}
      </Field>
      <Field label={t('branding.font')} error={at('font_family')}>
        {(p) => (
          <select
            {...p}
            value={draft.font_family}
            onChange={(e) => change({ ...draft, font_family: e.target.value })}
          >
            {fontsOf(openapi.data, draft.font_family).map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('branding.radius')} error={at('corner_radius_px')}>
        {(p) => (
          <input
            {...p}
            type="number"
            min={0}
            max={24}
            value={draft.corner_radius_px}
            onChange={(e) => change({ ...draft, corner_radius_px: Number(e.target.value) })}
          />
        )}
      </Field>
      <div className="schemes">
        {SCHEMES.map((scheme) => (
          <fieldset key={scheme} className="field">
            <legend>{t(`branding.scheme.${scheme}`)}</legend>
            <div className="colors">
              {(Object.keys(draft[scheme]) as (keyof Theme['light'])[]).map((c) => (
                <Field
                  key={c}
                  label={t('branding.color', {
                    color: t(`branding.color.${c}`),
                    scheme: t(`branding.scheme.${scheme}`),
                  })}
                  error={at(`${scheme}.${c}`)}
                >
                  {(p) => (
                    <input
                      {...p}
                      type="color"
                      value={colorInputValue(draft[scheme][c])}
                      onChange={(e) =>
                        change({ ...draft, [scheme]: { ...draft[scheme], [c]: e.target.value } })
                      }
                    />
                  )}
                </Field>
              ))}
            </div>
            <h2 className="help">{t('branding.preview')}</h2>
            <Preview theme={draft} scheme={scheme} />
          </fieldset>
        ))}
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('common.saving') : t('branding.save')}
        </button>
        <button type="button" disabled={reset.isPending} onClick={() => reset.mutate()}>
          {t('branding.reset')}
        </button>
      </div>
      {done && <p role="status">{done}</p>}
      <FormError error={save.error} placed={(err) => err.fields.length > 0} />
      {reset.isError && <ErrorMessage error={reset.error} />}
    </form>
  );
}

function LogoEditor() {
  const { t } = useTranslation();
  const queries = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [done, setDone] = useState('');
  const upload = useMutation({
    mutationFn: (f: File) => api<LogoInfo>('/v1/branding/logo', { method: 'POST', body: f }),
    onSuccess: (info) => {
      setDone(
        info.removed && info.removed.length > 0
          ? t('branding.logoSanitized', { removed: info.removed.join(', ') })
          : t('branding.logoSaved'),
      );
      void queries.invalidateQueries({ queryKey: ['logo'] });
    },
  });
  const reset = useMutation({
    mutationFn: () => api<void>('/v1/branding/logo/reset', { method: 'POST' }),
    onSuccess: () => {
      setDone(t('branding.logoRemoved'));
      void queries.invalidateQueries({ queryKey: ['logo'] });
    },
  });
  return (
    <form
      noValidate
      aria-labelledby="logo-title"
      onSubmit={(e) => {
        e.preventDefault();
        setDone('');
        if (file) upload.mutate(file);
      }}
    >
      <h2 id="logo-title">{t('branding.logo')}</h2>
      <Field label={t('branding.logoFile')} help={t('branding.logoHelp')}>
        {(p) => (
          <input
            {...p}
            type="file"
            accept="image/svg+xml,image/png,image/webp"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
        )}
      </Field>
      <div className="row">
        <button type="submit" disabled={!file || upload.isPending}>
          {t('branding.logoUpload')}
        </button>
        <button type="button" disabled={reset.isPending} onClick={() => reset.mutate()}>
          {t('branding.logoReset')}
        </button>
      </div>
      {done && <p role="status">{done}</p>}
      {upload.isError && <ErrorMessage error={upload.error} />}
      {reset.isError && <ErrorMessage error={reset.error} />}
    </form>
  );
}
