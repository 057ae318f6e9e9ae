import type { Knex } from 'knex';

/** What a configuration update may read while it holds the organization's row. */
export interface ConfigLookups {
  /** Whether the catalogue has an active model of this name in mode `rerank` for the organization. */
  isRerankModel(name: string): Promise<boolean>;
  /** Whether the catalogue has an active model of this name in mode `embedding` for the organization. */
  isEmbeddingModel(name: string): Promise<boolean>;
  /** Whether the organization has an agent (Custom GPT) with this id. */
  isAgent(id: string): Promise<boolean>;
}

/** The stored configuration of an organization, and its version (the ETag). */
export interface StoredConfig<C> {
  config: C;
  version: number;
}

/** Raised inside the update's transaction when If-Match names another version. */
export class VersionMismatch extends Error {
  constructor(readonly current: number) {
    super(`the configuration is at version ${current}`);
  }
}

const TABLE = 'organization_config';

/** System configuration per organization (PostgreSQL), one row each, written whole. */
export class ConfigStore {
  constructor(private readonly db: Knex) {}

  /** The stored configuration, or undefined when the organization never changed it. */
  async get<C>(organizationId: string): Promise<StoredConfig<C> | undefined> {
    const row = await this.db(TABLE)
      .where({ organization_id: organizationId })
      .first<{ config: C; version: number } | undefined>('config', 'version');
    return row && { config: row.config, version: row.version };
  }

  /**
   * Replaces the configuration with what `change` makes of the current one (`fallback` when
   * none is stored, version 0), atomically: the row is locked for the transaction, so two
   * updates apply one after the other. With `ifMatch`, a different current version throws
   * VersionMismatch and nothing is written; whatever `change` throws rolls it back too.
   */
  async update<C>(
    organizationId: string,
    fallback: C,
    ifMatch: number | undefined,
    change: (current: C, lookups: ConfigLookups, trx: Knex) => Promise<C>,
  ): Promise<StoredConfig<C>> {
    return this.db.transaction(async (trx) => {
      await trx(TABLE)
        .insert({ organization_id: organizationId, config: JSON.stringify(fallback), version: 0 })
        .onConflict('organization_id')
        .ignore();
      const row = await trx(TABLE)
        .where({ organization_id: organizationId })
        .forUpdate()
        .first<{ config: C; version: number }>('config', 'version');
      if (ifMatch !== undefined && ifMatch !== row.version) throw new VersionMismatch(row.version);
      // The organization's own entries and the platform-wide ones (docs/adr/0024).
      const isModel = async (name: string, mode: string) =>
        (await trx('model_catalogue')
          .where({ name, mode, active: true })
          .andWhere((q) => {
            void q.where({ organization_id: organizationId }).orWhereNull('organization_id');
          })
          .first('name')) !== undefined;
      const lookups: ConfigLookups = {
        isRerankModel: (name) => isModel(name, 'rerank'),
        isEmbeddingModel: (name) => isModel(name, 'embedding'),
        isAgent: async (id) =>
          (await trx('agents').where({ organization_id: organizationId, id }).first('id')) !==
          undefined,
      };
      const next = await change(row.config, lookups, trx);
      const version = row.version + 1;
      await trx(TABLE)
        .where({ organization_id: organizationId })
        .update({ config: JSON.stringify(next), version, updated_at: trx.fn.now() });
      return { config: next, version };
    });
  }

  /**
   * Sets `embedding_model` back from `from` to `to` when it still names `from`, as a new
   * version, in the caller's transaction (a cancelled reindex: the configuration names the
   * model in use again; docs/adr/0034).
   */
  async revertEmbeddingModel(
    trx: Knex,
    organizationId: string,
    from: string | null,
    to: string | null,
  ): Promise<void> {
    await trx(TABLE)
      .where({ organization_id: organizationId })
      .andWhereRaw("(config->>'embedding_model') is not distinct from ?", [from])
      .update({
        config: trx.raw("jsonb_set(config, '{embedding_model}', ?::jsonb)", [JSON.stringify(to)]),
        version: trx.raw('version + 1'),
        updated_at: trx.fn.now(),
      });
  }
}
