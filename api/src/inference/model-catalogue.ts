import { randomUUID } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { checkRemoteAddress, parseAddress } from '@aiplane/lib';
import { type Keyring, openSecret, sealSecret } from '@aiplane/lib/crypto';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid, Nullable } from '@aiplane/lib/service';
import { FILE_PATH_PATTERN, organizationDirectory } from './downloads/download-paths.js';
import type { ModelCatalogueStore, ModelRow, ModelRowChange } from './model-catalogue-store.js';

export const MODEL_MODES = ['chat', 'embedding', 'rerank', 'stt'] as const;
export type ModelMode = (typeof MODEL_MODES)[number];

/** A catalogue name: what callers write after `anthropic-model-` or on its own. */
export const MODEL_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$';

const Mode = Type.Union(
  MODEL_MODES.map((m) => Type.Literal(m)),
  { description: 'what the model does' },
);
const BackendKind = Type.Literal('openai', {
  description:
    'the backend’s API: the OpenAI-compatible HTTP API (vLLM, Ollama, llama.cpp, TGI, LiteLLM)',
});
const BaseUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'the backend’s base address including its API path (`https://host/v1`); `/chat/completions` is appended. SSRF-checked unless `in_cluster`.',
});
const ApiKey = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'the backend’s API key, sent as a bearer token; write-only (never returned)',
});
const ContextWindow = Type.Integer({ minimum: 1, maximum: 100_000_000 });
const TokenizerPath = Type.String({
  pattern: FILE_PATH_PATTERN,
  maxLength: 1000,
  description:
    'where the model’s `tokenizer.json` is in the model store, relative to the organization’s part of it (`<model>/<file>`, as model-installer downloads write it), or to the store’s root for a platform-wide entry; count_tokens counts with it, and uses the documented estimate while it is missing or unreadable. Up to 8 segments joined by `/`, none starting with a dot.',
});

export const ModelCreate = Type.Object(
  {
    name: Type.String({ pattern: MODEL_NAME_PATTERN }),
    mode: Mode,
    backend_kind: Type.Optional(BackendKind),
    base_url: BaseUrl,
    backend_model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'the model’s name at the backend (default: `name`)',
      }),
    ),
    api_key: Type.Optional(Nullable(ApiKey)),
    context_window: Type.Optional(Nullable(ContextWindow)),
    tokenizer: Type.Optional(Nullable(TokenizerPath)),
    active: Type.Optional(Type.Boolean({ description: 'default true' })),
    in_cluster: Type.Optional(
      Type.Boolean({
        description:
          'the backend runs inside the cluster: its address is not SSRF-checked (platform admins only)',
      }),
    ),
    platform_wide: Type.Optional(
      Type.Boolean({
        description: 'an entry for every organization (platform admins only); default false',
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateModel' },
);

export const ModelUpdate = Type.Object(
  {
    mode: Type.Optional(Mode),
    base_url: Type.Optional(BaseUrl),
    backend_model: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    // A new key; null removes it; omitted keeps it.
    api_key: Type.Optional(Nullable(ApiKey)),
    context_window: Type.Optional(Nullable(ContextWindow)),
    // A new path; null forgets it (count_tokens estimates); omitted keeps it.
    tokenizer: Type.Optional(Nullable(TokenizerPath)),
    active: Type.Optional(Type.Boolean()),
    in_cluster: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'UpdateModel' },
);

export const ModelSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    mode: Type.String(),
    organization_id: Nullable(Type.String({ description: 'null: platform-wide' })),
    backend_kind: Type.String(),
    base_url: Nullable(Type.String()),
    backend_model: Type.String(),
    has_api_key: Type.Boolean(),
    context_window: Nullable(Type.Integer()),
    tokenizer: Nullable(
      Type.String({ description: 'the model’s tokenizer.json in the model store; null: unknown' }),
    ),
    in_cluster: Type.Boolean(),
    active: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Model' },
);
export type Model = Static<typeof ModelSchema>;
type Create = Static<typeof ModelCreate>;
type Update = Static<typeof ModelUpdate>;

/** What the inference path needs of an entry: where to send it, and the opened key. */
export interface ModelBackend {
  id: string;
  name: string;
  organizationId: string | null;
  contextWindow: number | null;
  /** The model's tokenizer.json in the model store; null when unknown. */
  tokenizer: StoreFile | null;
  createdAt: Date;
  baseUrl: string;
  backendModel: string;
  inCluster: boolean;
  apiKey: string | undefined;
}

/** Who edits: platform admins may write platform-wide entries and in-cluster backends. */
export interface CatalogueEditor {
  organizationId: string;
  platformAdmin: boolean;
}

/** How long a resolved entry is reused by the inference path (docs/adr/0024). */
export const BACKEND_CACHE_MS = 1000;
/** Resolved entries kept at most (names asked for, found or not). */
const BACKEND_CACHE_ENTRIES = 1000;

export interface ModelCatalogueOptions {
  store: ModelCatalogueStore;
  keyring: Keyring;
  /** How long {@link ModelCatalogue.backendFor} reuses an answer (default BACKEND_CACHE_MS; 0: never). */
  backendCacheMs?: number;
  now?: () => number;
  /** TEST ONLY: backends on loopback pass the address rules (AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS). */
  allowLoopback: boolean;
  /**
   * An embedding entry is to name another model at its backend (its vectors change): `check`
   * runs before the change is written and may refuse it, `changed` after (the knowledge
   * domain's reindex, docs/adr/0034).
   */
  embeddingChange?: (entry: {
    name: string;
    organizationId: string | null;
    backendModel: string;
  }) => Promise<{ check(): Promise<void>; changed(): Promise<void> }>;
}

const aad = (id: string) => `model-catalogue:${id}`;

export function modelRecord(row: ModelRow): Model {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    organization_id: row.organization_id,
    backend_kind: row.backend_kind,
    base_url: row.base_url,
    backend_model: row.backend_model ?? row.name,
    has_api_key: row.api_key_sealed !== null,
    context_window: row.context_window,
    tokenizer: row.tokenizer,
    in_cluster: row.in_cluster,
    active: row.active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The catalogue's rules: who writes what, address checks, sealed keys (docs/adr/0024). */
export class ModelCatalogue {
  private readonly resolved = new Map<
    string,
    { at: number; backend: Promise<ModelBackend | undefined> }
  >();
  private readonly now: () => number;
  private readonly cacheMs: number;

  constructor(private readonly opts: ModelCatalogueOptions) {
    this.now = opts.now ?? Date.now;
    this.cacheMs = opts.backendCacheMs ?? BACKEND_CACHE_MS;
  }

  async list(organizationId: string): Promise<Model[]> {
    return (await this.opts.store.visible(organizationId)).map(modelRecord);
  }

  async get(organizationId: string, id: string): Promise<Model> {
    return modelRecord(await this.find(organizationId, id));
  }

  async create(editor: CatalogueEditor, body: Create): Promise<Model> {
    const platformWide = body.platform_wide === true;
    const inCluster = body.in_cluster === true;
    if ((platformWide || inCluster) && !editor.platformAdmin) {
      throw adminOnly(platformWide ? 'platform_wide' : 'in_cluster');
    }
    await this.checkAddress(body.base_url, inCluster);
    const id = randomUUID();
    const row = await this.opts.store.insert({
      id,
      organization_id: platformWide ? null : editor.organizationId,
      name: body.name,
      mode: body.mode,
      backend_kind: body.backend_kind ?? 'openai',
      base_url: body.base_url,
      backend_model: body.backend_model ?? null,
      api_key_sealed: body.api_key ? sealSecret(this.opts.keyring, body.api_key, aad(id)) : null,
      context_window: body.context_window ?? null,
      tokenizer: body.tokenizer ?? null,
      in_cluster: inCluster,
      active: body.active ?? true,
    });
    this.resolved.clear();
    if (!row) {
      throw new ApiError(
        'model_exists',
        `${platformWide ? 'the platform-wide catalogue' : 'the organization'} already has a model named ${body.name}`,
      );
    }
    return modelRecord(row);
  }

  async update(editor: CatalogueEditor, id: string, body: Update): Promise<Model> {
    const current = await this.find(editor.organizationId, id);
    if (current.organization_id === null && !editor.platformAdmin) throw adminOnly('platform_wide');
    if (body.in_cluster !== undefined && body.in_cluster !== current.in_cluster) {
      if (!editor.platformAdmin) throw adminOnly('in_cluster');
    }
    const inCluster = body.in_cluster ?? current.in_cluster;
    // An in-cluster row's address is exempt from the rules: only a platform admin moves it.
    if (inCluster && body.base_url !== undefined && !editor.platformAdmin) {
      throw adminOnly('in_cluster');
    }
    const baseUrl = body.base_url ?? current.base_url;
    // A new address, or one that loses the in-cluster exemption, is checked again.
    if (baseUrl !== null && (body.base_url !== undefined || body.in_cluster === false)) {
      await this.checkAddress(baseUrl, inCluster);
    }
    const change: ModelRowChange = {
      ...(body.mode === undefined ? {} : { mode: body.mode }),
      ...(body.base_url === undefined ? {} : { base_url: body.base_url }),
      ...(body.backend_model === undefined ? {} : { backend_model: body.backend_model }),
      ...(body.context_window === undefined ? {} : { context_window: body.context_window }),
      ...(body.tokenizer === undefined ? {} : { tokenizer: body.tokenizer }),
      ...(body.active === undefined ? {} : { active: body.active }),
      ...(body.in_cluster === undefined ? {} : { in_cluster: body.in_cluster }),
      ...(body.api_key === undefined
        ? {}
        : {
            api_key_sealed:
              body.api_key === null ? null : sealSecret(this.opts.keyring, body.api_key, aad(id)),
          }),
    };
    const backendModel =
      body.backend_model === undefined ? current.backend_model : body.backend_model;
    const reindex =
      current.mode === 'embedding' &&
      (body.mode ?? current.mode) === 'embedding' &&
      (backendModel ?? current.name) !== (current.backend_model ?? current.name)
        ? await this.opts.embeddingChange?.({
            name: current.name,
            organizationId: current.organization_id,
            backendModel: backendModel ?? current.name,
          })
        : undefined;
    await reindex?.check();
    const row = await this.opts.store.update(id, change);
    this.resolved.clear();
    if (!row) throw notFound();
    await reindex?.changed();
    return modelRecord(row);
  }

  async remove(editor: CatalogueEditor, id: string): Promise<void> {
    const current = await this.find(editor.organizationId, id);
    if (current.organization_id === null && !editor.platformAdmin) throw adminOnly('platform_wide');
    const removed = await this.opts.store.remove(id);
    this.resolved.clear();
    if (!removed) throw notFound();
  }

  /**
   * The active entry of `name` in `mode` the organization uses (its own first), with its key.
   * The inference path asks this once per request: an answer (found or not) is reused for
   * `backendCacheMs`, and every write through this catalogue forgets them all, so a change
   * made on another replica shows within that time.
   */
  backendFor(
    organizationId: string,
    name: string,
    mode: ModelMode,
  ): Promise<ModelBackend | undefined> {
    const key = `${organizationId}\0${mode}\0${name}`;
    const now = this.now();
    const hit = this.resolved.get(key);
    if (hit && now - hit.at < this.cacheMs) return hit.backend;
    const backend = this.opts.store
      .byName(organizationId, name, mode)
      .then((row) => row && this.backendOf(row));
    if (this.cacheMs <= 0) return backend;
    this.resolved.delete(key);
    this.resolved.set(key, { at: now, backend });
    backend.catch(() => this.resolved.delete(key)); // a failure is not kept
    for (const oldest of this.resolved.keys()) {
      if (this.resolved.size <= BACKEND_CACHE_ENTRIES) break;
      this.resolved.delete(oldest);
    }
    return backend;
  }

  /** The active chat entries the organization uses, one per name (its own shadow platform ones). */
  async chatModels(organizationId: string): Promise<ModelBackend[]> {
    const seen = new Set<string>();
    const out: ModelBackend[] = [];
    for (const row of await this.opts.store.visible(organizationId)) {
      if (row.mode !== 'chat' || !row.active || seen.has(row.name)) continue;
      seen.add(row.name);
      const backend = this.backendOf(row);
      if (backend) out.push(backend);
    }
    return out;
  }

  private backendOf(row: ModelRow): ModelBackend | undefined {
    if (row.base_url === null) return undefined; // a name-only entry of before issue 17
    return {
      id: row.id,
      name: row.name,
      organizationId: row.organization_id,
      contextWindow: row.context_window,
      tokenizer: tokenizerFile(row),
      createdAt: row.created_at,
      baseUrl: row.base_url,
      backendModel: row.backend_model ?? row.name,
      inCluster: row.in_cluster,
      apiKey:
        row.api_key_sealed === null
          ? undefined
          : openSecret(this.opts.keyring, row.api_key_sealed, aad(row.id)),
    };
  }

  private async find(organizationId: string, id: string): Promise<ModelRow> {
    const row = isUuid(id) ? await this.opts.store.get(organizationId, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  /** The rules of remote MCP addresses; an in-cluster backend only needs a well-formed URL. */
  private async checkAddress(address: string, inCluster: boolean): Promise<void> {
    if (inCluster) {
      const parsed = parseAddress(address);
      if ('rule' in parsed) throw invalidAddress(parsed.message);
      return;
    }
    const check = await checkRemoteAddress(address, { allowLoopback: this.opts.allowLoopback });
    if (!check.ok) throw invalidAddress(check.message);
  }
}

/** A file in the model store: `path` inside `directory` (relative to the store; '' the root). */
export interface StoreFile {
  directory: string;
  path: string;
}

/**
 * Where an entry's tokenizer is: an organization's entry names a file in the organization's
 * part of the store (where its downloads land) and cannot leave it; a platform-wide one a
 * file anywhere in the store.
 */
export function tokenizerFile(
  row: Pick<ModelRow, 'organization_id' | 'tokenizer'>,
): StoreFile | null {
  if (row.tokenizer === null) return null;
  const directory = row.organization_id === null ? '' : organizationDirectory(row.organization_id);
  return { directory, path: row.tokenizer };
}

const invalidAddress = (message: string) =>
  new ApiError('model_backend_address_invalid', `base_url: ${message}`);
const notFound = () =>
  new ApiError('model_not_found', 'no model of the catalogue the caller may see has this id');
const adminOnly = (field: 'platform_wide' | 'in_cluster') =>
  new ApiError(
    'model_catalogue_admin_only',
    field === 'platform_wide'
      ? 'platform-wide models are written by platform admins only'
      : 'in_cluster: only a platform admin may exempt a backend from the address rules',
  );
