import type { PinnedFetch } from '@aiplane/lib/mcp';
import { BackendFailure, callBackend } from '../inference/backend-client.js';
import type { Embedder } from './embedder.js';

/** Texts per request: OpenAI takes up to 2048 inputs; smaller requests retry cheaper. */
export const DEFAULT_REMOTE_EMBEDDING_BATCH = 64;

export interface RemoteBackendOptions {
  /** The catalogue entry's base URL (`…/v1`); `/embeddings` or `/rerank` is appended. */
  baseUrl: string;
  /** The model's name at the backend. */
  model: string;
  apiKey?: string | undefined;
  /** The SSRF-checked pool for remote backends, or the in-cluster one (its lean request). */
  http: Pick<PinnedFetch, 'request'>;
  /** The first retry's delay; each next one doubles it (three retries: spec, Limits). */
  retryBaseMs: number;
  /** One request's budget, retries included (default 600 s: spec, Limits). */
  timeoutMs?: number;
  /** Called before each retry, for logs and metrics. */
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
}

export interface OpenAiEmbedderOptions extends RemoteBackendOptions {
  /** The vector length the collection expects; an answer of another length is refused. */
  dimensions: number;
  /** Texts per request (default {@link DEFAULT_REMOTE_EMBEDDING_BATCH}). */
  batchSize?: number;
}

/** The backend answered 200 with something that is not what was asked for. */
export class MalformedBackendAnswer extends BackendFailure {
  constructor(message: string) {
    super(200, message);
  }
}

/** POSTs JSON to `<baseUrl>/<path>` with the retries of callBackend; the parsed 200 answer. */
export async function postJson(
  opts: RemoteBackendOptions,
  path: string,
  body: unknown,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const deadline = AbortSignal.timeout(opts.timeoutMs ?? 600_000);
  const res = await callBackend({
    request: opts.http.request,
    url: `${opts.baseUrl.replace(/\/+$/, '')}/${path}`,
    apiKey: opts.apiKey,
    body,
    signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    retryBaseMs: opts.retryBaseMs,
    ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
  });
  try {
    return await res.body.json();
  } catch {
    throw new MalformedBackendAnswer(`the backend's /${path} answer is not JSON`);
  }
}

/**
 * An OpenAI-compatible `/v1/embeddings` backend (OpenAI, vLLM, TEI, Ollama, LiteLLM…):
 * `POST {model, input: [...], encoding_format: "float"}`, vectors read from `data[].embedding`
 * placed by `data[].index`. Failures are BackendFailure (retried as the messages API does);
 * an answer with a missing, duplicate or wrongly sized vector is MalformedBackendAnswer.
 */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;

  constructor(private readonly opts: OpenAiEmbedderOptions) {
    this.model = opts.model;
    this.dimensions = opts.dimensions;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const size = this.opts.batchSize ?? DEFAULT_REMOTE_EMBEDDING_BATCH;
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += size) {
      const input = texts.slice(start, start + size);
      const answer = await postJson(
        this.opts,
        'embeddings',
        { model: this.opts.model, input, encoding_format: 'float' },
        signal,
      );
      out.push(...vectorsOf(answer, input.length, this.dimensions));
    }
    return out;
  }
}

/** `data[].embedding` of an embeddings answer, by `index`, each checked. */
export function vectorsOf(answer: unknown, count: number, dimensions: number): Float32Array[] {
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new MalformedBackendAnswer('the embeddings answer has no data');
  if (data.length !== count) {
    throw new MalformedBackendAnswer(
      `the embeddings answer has ${data.length} vectors for ${count} texts`,
    );
  }
  const out = new Array<Float32Array | undefined>(count);
  data.forEach((item: unknown, position) => {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const at = index === undefined ? position : index;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= count || out[at]) {
      throw new MalformedBackendAnswer(
        `the embeddings answer has a bad index at data[${position}]`,
      );
    }
    if (
      !Array.isArray(embedding) ||
      embedding.length !== dimensions ||
      !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw new MalformedBackendAnswer(
        `data[${position}].embedding is not ${dimensions} finite numbers`,
      );
    }
    out[at] = Float32Array.from(embedding as number[]);
  });
  return out as Float32Array[];
}

/** A text embedded once to learn the length of a backend's vectors. */
const DIMENSIONS_PROBE = 'How long are your vectors?';

/**
 * The length of the vectors `opts.model` answers at the backend: one short text embedded
 * (docs/adr/0034). A catalogue entry does not say it; the collection's table needs it.
 */
export async function learnDimensions(
  opts: RemoteBackendOptions,
  signal?: AbortSignal,
): Promise<number> {
  const answer = await postJson(
    opts,
    'embeddings',
    { model: opts.model, input: [DIMENSIONS_PROBE], encoding_format: 'float' },
    signal,
  );
  const first = (answer as { data?: { embedding?: unknown }[] } | null)?.data?.[0]?.embedding;
  const length = Array.isArray(first) ? first.length : 0;
  if (length === 0) throw new MalformedBackendAnswer('the embeddings answer has no vector');
  return (vectorsOf(answer, 1, length)[0] as Float32Array).length;
}
