import { type Static, Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { ApiError, type FieldError, ValidationFailed } from '@aiplane/lib/errors';
import { Nullable, validator } from '@aiplane/lib/service';
import { type ConfigLookups, type ConfigStore, VersionMismatch } from './config-store.js';

const RetrievalK = Type.Integer({
  minimum: 1,
  maximum: 50,
  description: 'how many retrieved passages a question gets',
});
const TopN = Type.Integer({
  minimum: 1,
  maximum: 50,
  description: 'how many passages the reranker keeps (null: all); needs a reranker model',
});
const DocumentIds = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 1000,
  uniqueItems: true,
});

export const ServiceDeskSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    custom_gpt_id: Nullable(
      Type.String({ format: 'uuid', description: 'the Custom GPT (agent) the chat uses' }),
    ),
    document_ids: Nullable(
      Type.Array(Type.String(), {
        description: 'the documents it answers from; null: the GPT’s own',
      }),
    ),
  },
  { title: 'ServiceDeskConfiguration' },
);
export type ServiceDeskConfiguration = Static<typeof ServiceDeskSchema>;

/** The system configuration of an organization (spec: System configuration; docs/adr/0018). */
export const SystemConfigSchema = Type.Object(
  {
    retrieval_k: RetrievalK,
    rerank_top_n: Nullable(TopN),
    reranker_enabled: Type.Boolean(),
    reranker_model: Nullable(Type.String({ description: 'a catalogue model of mode rerank' })),
    embedding_model: Nullable(
      Type.String({
        description:
          'the embedding model of the organization’s collection: an active catalogue model of mode embedding; null: the local all-MiniLM-L6-v2. A change starts a reindex (GET /v1/collections/documents/reindex).',
      }),
    ),
    service_desk: ServiceDeskSchema,
  },
  { title: 'SystemConfig' },
);
export type SystemConfig = Static<typeof SystemConfigSchema>;

export const DEFAULT_CONFIG: SystemConfig = {
  retrieval_k: 3,
  rerank_top_n: null,
  reranker_enabled: false,
  reranker_model: null,
  embedding_model: null,
  service_desk: { enabled: false, custom_gpt_id: null, document_ids: null },
};

/** A partial update of the configuration: fields merged one level deep. */
export const ConfigPatch = Type.Object(
  {
    retrieval_k: Type.Optional(RetrievalK),
    rerank_top_n: Type.Optional(Nullable(TopN)),
    reranker_enabled: Type.Optional(Type.Boolean()),
    reranker_model: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    embedding_model: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    service_desk: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          custom_gpt_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
          document_ids: Type.Optional(Nullable(DocumentIds)),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'SystemConfigPatch' },
);
export type ConfigPatch = Static<typeof ConfigPatch>;
const parsePatch = validator(ConfigPatch);

/** `collection_name` was replaced by `document_ids` (release 1.2.0): named, not just unknown. */
function refuseCollectionName(body: unknown): void {
  const desk = (body as { service_desk?: unknown } | null)?.service_desk;
  const sent = [body, desk].some(
    (o) => typeof o === 'object' && o !== null && Object.hasOwn(o, 'collection_name'),
  );
  if (sent) {
    throw new ValidationFailed([
      {
        field: 'service_desk.document_ids',
        message: 'collection_name was replaced by document_ids (release 1.2.0); send document_ids',
      },
    ]);
  }
}

/** The configuration a patch makes of `current`, its fields merged one level deep. */
export function merged(current: SystemConfig, patch: ConfigPatch): SystemConfig {
  const { service_desk: desk, ...top } = patch;
  return {
    ...current,
    ...top,
    service_desk: { ...current.service_desk, ...desk },
  };
}

/** The spec's rules on a whole configuration: each violation a field error. */
export async function ruleViolations(
  c: SystemConfig,
  lookups: ConfigLookups,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  if (c.reranker_model !== null && !(await lookups.isRerankModel(c.reranker_model))) {
    errors.push({ field: 'reranker_model', message: 'is not a catalogue model of mode rerank' });
  }
  if (c.embedding_model !== null && !(await lookups.isEmbeddingModel(c.embedding_model))) {
    errors.push({
      field: 'embedding_model',
      message: 'is not an active catalogue model of mode embedding',
    });
  }
  if (c.reranker_enabled && c.reranker_model === null) {
    errors.push({
      field: 'reranker_enabled',
      message: 'the reranker can be enabled only after a reranker model is selected',
    });
  }
  if (c.rerank_top_n !== null && c.reranker_model === null) {
    errors.push({
      field: 'rerank_top_n',
      message: 'can be set only when a reranker model is selected',
    });
  }
  const desk = c.service_desk;
  if (desk.custom_gpt_id !== null && !(await lookups.isAgent(desk.custom_gpt_id))) {
    errors.push({
      field: 'service_desk.custom_gpt_id',
      message: 'is not a Custom GPT of the organization',
    });
  }
  if (desk.enabled && desk.custom_gpt_id === null) {
    errors.push({
      field: 'service_desk.enabled',
      message: 'the service desk can be enabled only after a Custom GPT is selected',
    });
  }
  return errors;
}

/** A stored configuration with the defaults of fields added after it was saved. */
const withDefaults = (stored: SystemConfig): SystemConfig => ({ ...DEFAULT_CONFIG, ...stored });

/** The ETag of a configuration version (a strong validator). */
export const etagOf = (version: number): string => `"config-v${version}"`;

/** `If-Match` as a version; a value that is no ETag of ours can match nothing (412). */
export function ifMatchVersion(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const m = /^\s*"config-v(\d{1,9})"\s*$/.exec(header);
  return m ? Number(m[1]) : -1;
}

/**
 * What a change of `embedding_model` sets off (the knowledge domain's reindex, ADR 0034):
 * `prepare` checks the model before the configuration's transaction (it may call the model's
 * backend, and throws the route's error); `apply` runs inside it, `committed` after it.
 */
export interface EmbeddingModelChange {
  prepare(
    organizationId: string,
    model: string | null,
  ): Promise<{ apply(trx: Knex): Promise<void>; committed(): Promise<void> }>;
}

/** System configuration of organizations: read (defaults until changed), patched atomically. */
export class SystemConfiguration {
  constructor(
    private readonly store: ConfigStore,
    private readonly embedding?: EmbeddingModelChange,
  ) {}

  async get(organizationId: string): Promise<{ config: SystemConfig; etag: string }> {
    const stored = await this.store.get<SystemConfig>(organizationId);
    return {
      config: stored ? withDefaults(stored.config) : DEFAULT_CONFIG,
      etag: etagOf(stored?.version ?? 0),
    };
  }

  /**
   * Applies a partial update, all or nothing: 422 with field errors for a body or a result
   * that breaks a rule, 412 config_version_mismatch when `ifMatch` names another version.
   */
  async patch(
    organizationId: string,
    body: unknown,
    ifMatch: string | undefined,
  ): Promise<{ config: SystemConfig; etag: string }> {
    refuseCollectionName(body);
    const patch = parsePatch(body);
    const model = patch.embedding_model;
    const change =
      model !== undefined &&
      this.embedding &&
      (await this.get(organizationId)).config.embedding_model !== model
        ? await this.embedding.prepare(organizationId, model)
        : undefined;
    try {
      const stored = await this.store.update<SystemConfig>(
        organizationId,
        DEFAULT_CONFIG,
        ifMatchVersion(ifMatch),
        async (current, lookups, trx) => {
          const before = withDefaults(current);
          const next = merged(before, patch);
          const errors = await ruleViolations(next, lookups);
          if (errors.length > 0) throw new ValidationFailed(errors);
          if (next.embedding_model !== before.embedding_model) {
            if (!change) {
              throw new ApiError(
                'config_version_mismatch',
                'the embedding model changed since it was read; read the configuration again and retry',
              );
            }
            await change.apply(trx);
          }
          return next;
        },
      );
      await change?.committed();
      return { config: stored.config, etag: etagOf(stored.version) };
    } catch (err) {
      if (!(err instanceof VersionMismatch)) throw err;
      throw new ApiError(
        'config_version_mismatch',
        `the configuration changed since it was read (now ${etagOf(err.current)}); read it again and retry`,
        { ETag: etagOf(err.current) },
      );
    }
  }
}
