import { Type } from '@sinclair/typebox';
import { type FieldError, ValidationFailed } from '@aiplane/lib/errors';
import { Nullable } from '@aiplane/lib/service';
import type {
  LanguageOverrides,
  OverrideChange,
  Overrides,
  TranslationStore,
} from './translation-store.js';
import { OverrideLimitExceeded } from './translation-store.js';

/** Bounds of translation overrides (spec: "not shown"; docs/adr/0017). */
export const TRANSLATION_LIMITS = {
  languageLength: 35,
  namespaceLength: 64,
  keyLength: 256,
  valueLength: 4096,
  changesPerRequest: 1000,
  overridesPerOrganization: 10_000,
} as const;

const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A language code as a canonical BCP 47 tag (`EN-us` → `en-US`), or a 422 naming `language`.
 * ISO 639-1 codes (`de`) are BCP 47 tags too.
 */
export function canonicalLanguage(raw: string, field = 'language'): string {
  let tag: string | undefined;
  if (raw.length > 0 && raw.length <= TRANSLATION_LIMITS.languageLength) {
    try {
      [tag] = Intl.getCanonicalLocales(raw);
    } catch {
      tag = undefined;
    }
  }
  if (tag === undefined || tag.length > TRANSLATION_LIMITS.languageLength) {
    throw new ValidationFailed([
      { field, message: 'must be a BCP 47 language tag such as en, de or pt-BR' },
    ]);
  }
  return tag;
}

/** One language's overrides: namespace, then key, then value. */
export const LanguageOverridesSchema = Type.Record(
  Type.String(),
  Type.Record(Type.String(), Type.String()),
  { title: 'LanguageOverrides', description: 'namespace → key → value' },
);
/** Every override of an organization: language, then namespace, then key, then value. */
export const OverridesSchema = Type.Record(Type.String(), LanguageOverridesSchema, {
  title: 'TranslationOverrides',
  description: 'language (BCP 47) → namespace → key → value',
});

/**
 * The body of a translation update, as {@link parseChanges} checks it (from the same limits):
 * `{namespace: {key: string | null}}`, null removing the key.
 */
export const TranslationPatchSchema = Type.Object(
  {},
  {
    title: 'TranslationPatch',
    description: `namespace → key → new value, or null to remove the override; at most ${TRANSLATION_LIMITS.changesPerRequest} keys per request`,
    propertyNames: { maxLength: TRANSLATION_LIMITS.namespaceLength },
    patternProperties: {
      [NAMESPACE.source]: Type.Record(
        Type.String(),
        Nullable(Type.String({ maxLength: TRANSLATION_LIMITS.valueLength })),
        { propertyNames: { minLength: 1, maxLength: TRANSLATION_LIMITS.keyLength } },
      ),
    },
    additionalProperties: false,
  },
);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The changes a PATCH body asks for: `{namespace: {key: string | null}}`, null removing the
 * key. Every problem is a field error (422), and nothing is applied when there is one.
 */
export function parseChanges(body: unknown): OverrideChange[] {
  const L = TRANSLATION_LIMITS;
  if (!isObject(body)) {
    throw new ValidationFailed([
      { field: '', message: 'must be an object of namespaces, each an object of keys' },
    ]);
  }
  const errors: FieldError[] = [];
  const changes: OverrideChange[] = [];
  for (const [namespace, keys] of Object.entries(body)) {
    if (namespace.length > L.namespaceLength || !NAMESPACE.test(namespace)) {
      errors.push({
        field: namespace,
        message: `a namespace is 1 to ${L.namespaceLength} letters, digits, '_', '.' or '-'`,
      });
      continue;
    }
    if (!isObject(keys)) {
      errors.push({ field: namespace, message: 'must be an object of keys' });
      continue;
    }
    for (const [key, value] of Object.entries(keys)) {
      const field = `${namespace}.${key}`;
      if (key.length === 0 || key.length > L.keyLength || CONTROL.test(key)) {
        errors.push({
          field,
          message: `a key is 1 to ${L.keyLength} characters without control characters`,
        });
      } else if (value !== null && typeof value !== 'string') {
        errors.push({ field, message: 'must be a string, or null to remove the override' });
      } else if (typeof value === 'string' && value.length > L.valueLength) {
        errors.push({ field, message: `must be at most ${L.valueLength} characters` });
      } else {
        changes.push({ namespace, key, value });
      }
    }
  }
  if (errors.length === 0 && changes.length > L.changesPerRequest) {
    errors.push({ field: '', message: `at most ${L.changesPerRequest} keys per request` });
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
  return changes;
}

/** Translation overrides of an organization: read, merge per language, reset. */
export class Translations {
  constructor(private readonly store: TranslationStore) {}

  all(organizationId: string): Promise<Overrides> {
    return this.store.all(organizationId);
  }

  /** Deep-merges one language's changes; answers that language's overrides after them. */
  async update(
    organizationId: string,
    language: string,
    body: unknown,
  ): Promise<{ language: string; overrides: LanguageOverrides }> {
    const tag = canonicalLanguage(language);
    const changes = parseChanges(body);
    try {
      const overrides = await this.store.apply(
        organizationId,
        tag,
        changes,
        TRANSLATION_LIMITS.overridesPerOrganization,
      );
      return { language: tag, overrides };
    } catch (err) {
      if (!(err instanceof OverrideLimitExceeded)) throw err;
      throw new ValidationFailed([
        {
          field: '',
          message: `an organization holds at most ${TRANSLATION_LIMITS.overridesPerOrganization} overrides; this update would make ${err.total}`,
        },
      ]);
    }
  }

  /** Clears every override, or one language's (`language` given). */
  async reset(organizationId: string, language?: string): Promise<void> {
    await this.store.reset(
      organizationId,
      language === undefined ? undefined : canonicalLanguage(language),
    );
  }
}
