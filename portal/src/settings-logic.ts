// The settings pages' pure logic (unit-tested in settings-logic.test.ts).
import type { SystemConfig } from './settings-types';

/** The form's text of a configuration, and back (empty text: null). */
export interface Draft {
  retrieval_k: string;
  rerank_top_n: string;
  reranker_enabled: boolean;
  reranker_model: string;
  embedding_model: string;
  desk_enabled: boolean;
  custom_gpt_id: string;
  document_ids: string;
}
export const draftOf = (c: SystemConfig): Draft => ({
  retrieval_k: String(c.retrieval_k),
  rerank_top_n: c.rerank_top_n === null ? '' : String(c.rerank_top_n),
  reranker_enabled: c.reranker_enabled,
  reranker_model: c.reranker_model ?? '',
  embedding_model: c.embedding_model ?? '',
  desk_enabled: c.service_desk.enabled,
  custom_gpt_id: c.service_desk.custom_gpt_id ?? '',
  document_ids: (c.service_desk.document_ids ?? []).join('\n'),
});
const text = (s: string) => (s.trim() === '' ? null : s.trim());
const number = (s: string) => (s.trim() === '' ? null : Number(s));

/** The fields a draft changes of the stored configuration (a PATCH sends only those). */
export function patchOf(stored: SystemConfig, d: Draft): Record<string, unknown> {
  const next: SystemConfig = {
    retrieval_k: Number(d.retrieval_k),
    rerank_top_n: number(d.rerank_top_n),
    reranker_enabled: d.reranker_enabled,
    reranker_model: text(d.reranker_model),
    embedding_model: text(d.embedding_model),
    service_desk: {
      enabled: d.desk_enabled,
      custom_gpt_id: text(d.custom_gpt_id),
      document_ids:
        text(d.document_ids) === null
          ? null
          : d.document_ids
              .split('\n')
              .map((s) => s.trim())
              .filter(Boolean),
    },
  };
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(next) as (keyof SystemConfig)[]) {
    if (key === 'service_desk') continue;
    if (next[key] !== stored[key]) patch[key] = next[key];
  }
  const desk: Record<string, unknown> = {};
  for (const key of Object.keys(next.service_desk) as (keyof SystemConfig['service_desk'])[]) {
    if (JSON.stringify(next.service_desk[key]) !== JSON.stringify(stored.service_desk[key])) {
      desk[key] = next.service_desk[key];
    }
  }
  if (Object.keys(desk).length > 0) patch.service_desk = desk;
  return patch;
}

/**
 * The changes of one language's overrides a form makes: a new or changed value, or null for a
 * cleared one (the API removes it).
 */
export function translationChanges(
  stored: Record<string, string>,
  edited: Record<string, string>,
): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(edited)) {
    if (value === '' && key in stored) changes[key] = null;
    else if (value !== '' && value !== stored[key]) changes[key] = value;
  }
  return changes;
}

/** A colour as `<input type="color">` holds it (#rrggbb); #rgb(a) widened, alpha dropped. */
export function colorInputValue(hex: string): string {
  const digits = hex.slice(1);
  if (digits.length === 3 || digits.length === 4) {
    return `#${[...digits.slice(0, 3)].map((c) => c + c).join('')}`.toLowerCase();
  }
  return `#${digits.slice(0, 6)}`.toLowerCase();
}

/**
 * The fonts a theme may name, read from the API's own schema (`GET /openapi.json`: the `Theme`
 * schema's `font_family`, a union of constants); the current font when the document lacks them.
 */
export function fontsOf(openapi: unknown, current: string): string[] {
  type Node = { const?: unknown; enum?: unknown[]; anyOf?: Node[]; oneOf?: Node[] };
  const doc = openapi as
    | { components?: { schemas?: Record<string, { properties?: Record<string, Node> }> } }
    | undefined;
  const font = doc?.components?.schemas?.Theme?.properties?.font_family;
  const names = [
    ...(font?.enum ?? []),
    ...(font?.anyOf ?? font?.oneOf ?? []).map((n) => n.const),
  ].filter((n): n is string => typeof n === 'string');
  return names.includes(current) ? names : [current, ...names];
}
