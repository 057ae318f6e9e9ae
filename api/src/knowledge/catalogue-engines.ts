import type { PinnedFetch } from '@aiplane/lib/mcp';
import { ApiError } from '@aiplane/lib/errors';
import type { ModelBackend, ModelCatalogue } from '../inference/model-catalogue.js';
import type { Embedder } from './embedder.js';
import { LOCAL_EMBEDDING_MODEL } from './local-embedder.js';
import type { RemoteBackendOptions } from './openai-embedder.js';
import { RemoteReranker } from './remote-reranker.js';
import { LocalReranker, type Reranker } from './reranker.js';

/** How a catalogue backend is dialed: its own pool (in-cluster or SSRF-checked), its retries. */
export interface BackendDialing {
  /** The SSRF-checked pool for remote backends. */
  remote: Pick<PinnedFetch, 'request'>;
  /** The pool for backends an admin marked in-cluster. */
  cluster: Pick<PinnedFetch, 'request'>;
  retryBaseMs: number;
}

/** A catalogue backend as the knowledge engines' remote client options. */
export function remoteOptionsOf(
  backend: ModelBackend,
  dialing: BackendDialing,
): RemoteBackendOptions {
  return {
    baseUrl: backend.baseUrl,
    model: backend.backendModel,
    apiKey: backend.apiKey,
    http: backend.inCluster ? dialing.cluster : dialing.remote,
    retryBaseMs: dialing.retryBaseMs,
  };
}

/**
 * The rerankers an organization may use (docs/adr/0031): the catalogue's models of mode
 * `rerank` (each behind its `/rerank` backend), and the local default that scores with the
 * local embedding model.
 */
export class Rerankers {
  constructor(
    private readonly opts: {
      models: Pick<ModelCatalogue, 'backendFor'>;
      localEmbedder: () => Promise<Embedder>;
      dialing: BackendDialing;
      /** The organization's selected reranker model (`reranker_model` of /v1/config). */
      configured: (organizationId: string) => Promise<string | null>;
    },
  ) {}

  /**
   * The reranker a request names: `model` when given (the local default's name, or a catalogue
   * rerank model; anything else is 404 `model_not_found`), else the organization's selected
   * one, else the local default. Answers it with the name to report.
   */
  async forRequest(
    organizationId: string,
    model: string | null | undefined,
  ): Promise<{ name: string; reranker: Reranker }> {
    const name = model ?? (await this.opts.configured(organizationId));
    if (name === null || name === LOCAL_EMBEDDING_MODEL) {
      return { name: LOCAL_EMBEDDING_MODEL, reranker: await this.local() };
    }
    const reranker = await this.named(organizationId, name);
    if (!reranker) {
      throw new ApiError(
        'model_not_found',
        `the organization has no active rerank model named ${name.slice(0, 200)}`,
      );
    }
    return { name, reranker };
  }

  /** The local default (its name is the local embedding model's). */
  async local(): Promise<Reranker> {
    return new LocalReranker(await this.opts.localEmbedder());
  }

  /** The catalogue's active rerank model of this name for the organization; undefined if none. */
  async named(organizationId: string, name: string): Promise<Reranker | undefined> {
    const backend = await this.opts.models.backendFor(organizationId, name, 'rerank');
    return backend && new RemoteReranker(remoteOptionsOf(backend, this.opts.dialing));
  }
}
