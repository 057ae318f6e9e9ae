import type { Knex } from 'knex';

/** `{namespace: {key: value}}` of one language. */
export type LanguageOverrides = Record<string, Record<string, string>>;
/** `{language: {namespace: {key: value}}}` (spec: nested mapping language, namespace, key). */
export type Overrides = Record<string, LanguageOverrides>;

export interface OverrideChange {
  namespace: string;
  key: string;
  /** null removes the override. */
  value: string | null;
}

interface Row {
  language: string;
  namespace: string;
  key: string;
  value: string;
}

const TABLE = 'translation_overrides';

function nest(rows: Row[]): Overrides {
  const out: Overrides = {};
  for (const r of rows) {
    const language = (out[r.language] ??= {});
    (language[r.namespace] ??= {})[r.key] = r.value;
  }
  return out;
}

/** Raised inside the update's transaction, so nothing of the update is kept. */
export class OverrideLimitExceeded extends Error {
  constructor(readonly total: number) {
    super(`the organization would hold ${total} overrides`);
  }
}

/** Translation overrides of organizations (PostgreSQL); every query is scoped by organization. */
export class TranslationStore {
  constructor(private readonly db: Knex) {}

  async all(organizationId: string): Promise<Overrides> {
    const rows = await this.db(TABLE)
      .where({ organization_id: organizationId })
      .orderBy(['language', 'namespace', 'key'])
      .select<Row[]>('language', 'namespace', 'key', 'value');
    return nest(rows);
  }

  /**
   * Applies the changes to one language atomically: all or none. Concurrent updates of one
   * organization are queued (a transaction-scoped advisory lock), so the total it then counts
   * is exact; over `maxTotal` the transaction rolls back with OverrideLimitExceeded.
   */
  async apply(
    organizationId: string,
    language: string,
    changes: readonly OverrideChange[],
    maxTotal: number,
  ): Promise<LanguageOverrides> {
    return this.db.transaction(async (trx) => {
      await trx.raw("select pg_advisory_xact_lock(hashtext('translations:' || ?))", [
        organizationId,
      ]);
      const scope = { organization_id: organizationId, language };
      const removed = changes.filter((c) => c.value === null);
      if (removed.length > 0) {
        await trx(TABLE)
          .where(scope)
          .whereIn(
            ['namespace', 'key'],
            removed.map((c) => [c.namespace, c.key]),
          )
          .delete();
      }
      const set = changes.filter((c) => c.value !== null);
      if (set.length > 0) {
        await trx(TABLE)
          .insert(
            set.map((c) => ({ ...scope, namespace: c.namespace, key: c.key, value: c.value })),
          )
          .onConflict(['organization_id', 'language', 'namespace', 'key'])
          .merge({ value: trx.raw('excluded.value'), updated_at: trx.fn.now() });
      }
      const counted = await trx(TABLE)
        .where({ organization_id: organizationId })
        .count<{ count: string }[]>({ count: '*' });
      const total = Number(counted[0]?.count ?? 0);
      if (total > maxTotal) throw new OverrideLimitExceeded(total);
      const rows = await trx(TABLE)
        .where(scope)
        .orderBy(['namespace', 'key'])
        .select<Row[]>('language', 'namespace', 'key', 'value');
      return nest(rows)[language] ?? {};
    });
  }

  /** Removes every override of the organization, or of one language; answers how many. */
  async reset(organizationId: string, language?: string): Promise<number> {
    return this.db(TABLE)
      .where({ organization_id: organizationId, ...(language ? { language } : {}) })
      .delete();
  }
}
