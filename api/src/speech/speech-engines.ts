import type { Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import type { PinnedFetch } from '@aiplane/lib/mcp';
import type { ModelCatalogue } from '../inference/model-catalogue.js';
import type { SpeechEngine } from './engine.js';
import { PocketSphinxEngine } from './pocketsphinx-engine.js';
import { LOCAL_STT_MODEL, type SpeechConfig } from './speech-config.js';
import { TranscriptionEngine } from './transcription-engine.js';

export interface SpeechEnginesOptions {
  config: SpeechConfig;
  /** The model catalogue: models of mode `stt`. */
  models: Pick<ModelCatalogue, 'backendFor'>;
  /** The SSRF-checked pool for remote backends, and the one for in-cluster ones. */
  remote: Pick<PinnedFetch, 'request'>;
  cluster: Pick<PinnedFetch, 'request'>;
  retryBaseMs: number;
  /** One transcription request's budget, retries included. */
  requestTimeoutMs: number;
  logger: Logger;
}

/**
 * The engine of a session (docs/adr/0036): the handshake's `model`, else
 * AIPLANE_STT_DEFAULT_MODEL; `pocketsphinx-en-us` is the local engine, any other name an active
 * catalogue model of mode `stt` the organization uses (its own first, then platform-wide).
 */
export class SpeechEngines {
  /** The local engine, when its helper is configured. */
  readonly local: PocketSphinxEngine | undefined;

  constructor(private readonly opts: SpeechEnginesOptions) {
    const c = opts.config;
    this.local =
      c.pocketsphinxHelper === null
        ? undefined
        : new PocketSphinxEngine({
            helper: c.pocketsphinxHelper,
            modelDir: c.pocketsphinxModelDir,
            warm: c.warmEngines,
            interimIntervalMs: c.interimIntervalMs,
            pauseMs: c.pauseMs,
            logger: opts.logger,
          });
  }

  /** The engine named `model` (or the default) for the organization; ApiError when none. */
  async forSession(organizationId: string, model: string | undefined): Promise<SpeechEngine> {
    const name = model ?? this.opts.config.defaultModel;
    if (name === LOCAL_STT_MODEL) {
      if (!this.local) {
        throw new ApiError(
          'speech_backend_unavailable',
          'the local speech engine is not installed on this server (AIPLANE_STT_POCKETSPHINX_HELPER)',
        );
      }
      return this.local;
    }
    const backend = await this.opts.models.backendFor(organizationId, name, 'stt');
    if (!backend) {
      throw new ApiError(
        model === undefined ? 'speech_backend_unavailable' : 'model_not_found',
        `the organization has no active speech (stt) model named ${name}`,
      );
    }
    return new TranscriptionEngine({
      name,
      backend: {
        baseUrl: backend.baseUrl,
        model: backend.backendModel,
        apiKey: backend.apiKey,
        http: backend.inCluster ? this.opts.cluster : this.opts.remote,
        retryBaseMs: this.opts.retryBaseMs,
        timeoutMs: this.opts.requestTimeoutMs,
      },
      pauseMs: this.opts.config.pauseMs,
      interimIntervalMs: this.opts.config.interimIntervalMs,
    });
  }

  close(): void {
    this.local?.close();
  }
}
