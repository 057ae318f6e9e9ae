import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { chooseLanguage } from '../i18n';
import type { Overrides } from '../settings-types';

/** The portal's language: English and every language the organization has overrides for. */
export function LanguageSelector() {
  const { t, i18n } = useTranslation();
  // The shell's Branding reads the overrides; this shares its answer.
  const overrides = useQuery<Overrides>({ queryKey: ['translations'], enabled: false });
  const languages = [
    ...new Set(['en', ...Object.keys(overrides.data ?? {}), i18n.language]),
  ].sort();
  return (
    <div className="tenant-selector">
      <label htmlFor="language-selector">{t('language.label')}</label>
      <select
        id="language-selector"
        value={i18n.language}
        onChange={(e) => chooseLanguage(e.target.value)}
      >
        {languages.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
}
