import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ENGLISH } from './strings';

/** The namespace of the portal's strings in `GET /v1/translations` (language → namespace → key). */
export const NAMESPACE = 'portal';

const LANGUAGE_KEY = 'aiplane.language';

/** The language chosen in the portal's selector, else the browser's. */
export function currentLanguage(): string {
  return window.localStorage.getItem(LANGUAGE_KEY) ?? navigator.language.split('-')[0] ?? 'en';
}

/** Switches the portal's language at once (and for the next visits). */
export function chooseLanguage(language: string): void {
  window.localStorage.setItem(LANGUAGE_KEY, language);
  document.documentElement.lang = language;
  void i18next.changeLanguage(language);
}

export async function initI18n(): Promise<void> {
  document.documentElement.lang = currentLanguage();
  await i18next.use(initReactI18next).init({
    lng: currentLanguage(),
    fallbackLng: 'en',
    supportedLngs: false,
    ns: [NAMESPACE],
    defaultNS: NAMESPACE,
    // Keys are flat ("tenants.title"), exactly as overrides name them.
    keySeparator: false,
    nsSeparator: false,
    resources: { en: { [NAMESPACE]: ENGLISH } },
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });
}

/** Applies the organization's overrides on top of the built-in strings. */
export function applyOverrides(
  overrides: Record<string, Record<string, Record<string, string>>>,
): void {
  for (const [language, namespaces] of Object.entries(overrides)) {
    const strings = namespaces[NAMESPACE];
    if (strings) i18next.addResourceBundle(language, NAMESPACE, strings, true, true);
  }
  void i18next.changeLanguage(i18next.language);
}
