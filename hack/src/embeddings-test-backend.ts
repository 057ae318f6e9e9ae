import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Embedder, RerankBadRequest, type Reranker } from '@aiplane/api';
import { Injections, json, startLoopbackBackend } from './loopback-backend.js';

/** One request the backend received. */
export interface EmbeddingsTestRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface EmbeddingsTestBackendOptions {
  /** Serves `POST /v1/embeddings` with it (the local model, in the tests). */
  embedder: Embedder;
  /** Serves `POST /v1/rerank` with it. */
  reranker: Reranker;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /**
   * Models answered with shorter vectors: the first N components of the embedder's, scaled
   * to unit length, as OpenAI shortens its text-embedding-3 vectors (another real dimension).
   */
  shortened?: Record<string, number>;
}

export interface EmbeddingsTestBackend {
  /** `http://127.0.0.1:<port>/v1`: what a catalogue entry's base_url is. */
  baseUrl: string;
  requests: EmbeddingsTestRequest[];
  /** The next `count` requests answer `status` with an error body. */
  failNext(count: number, status: number): void;
  /** The next embeddings answer is this body instead of the real one (a broken backend). */
  answerNext(body: unknown): void;
  /**
   * Embeddings requests (those with a text `match` accepts, when given) wait unanswered from
   * now until {@link release}: a slow backend, held where a test wants it.
   */
  hold(match?: (text: string) => boolean): void;
  release(): void;
  /** Embeddings requests waiting now. */
  readonly waiting: number;
  close(): Promise<void>;
}

/**
 * TEST SUPPORT: a real model behind the wire shapes of the backends the platform calls, on
 * loopback, so the remote clients are proven against the local engines (docs/adr/0031):
 *
 * - `POST /v1/embeddings` `{model, input}` (a string or a list of strings) answers
 *   `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}` with the
 *   data listed LAST TEXT FIRST, so a client that ignores `index` gets the vectors wrong. A
 *   model named in `shortened` answers shorter real vectors (another dimension); `hold` keeps
 *   requests waiting where a test wants a slow backend (docs/adr/0034).
 * - `POST /v1/rerank` (and `/rerank`) `{model, query, documents, top_n}` answers
 *   `{results: [{index, relevance_score}]}` best first, as Cohere and Jina do; a request the
 *   reranker refuses answers 400 `{error: {message}}`, as such backends do.
 */
export async function startEmbeddingsTestBackend(
  opts: EmbeddingsTestBackendOptions,
): Promise<EmbeddingsTestBackend> {
  const requests: EmbeddingsTestRequest[] = [];
  const injected = new Injections();
  let gate:
    { opened: Promise<void>; open: () => void; match: (text: string) => boolean } | undefined;
  let waiting = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      json(res, 400, { error: { message: 'the body is not JSON' } });
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ path, headers: req.headers, body });
    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      json(res, 401, { error: { message: 'invalid api key' } });
      return;
    }
    if (injected.failed(res)) return;
    if (req.method === 'POST' && path === '/v1/embeddings') {
      const { model, input } = (body ?? {}) as { model?: unknown; input?: unknown };
      const texts = typeof input === 'string' ? [input] : input;
      if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) {
        json(res, 400, { error: { message: 'input must be a string or a list of strings' } });
        return;
      }
      if (gate && texts.some(gate.match)) {
        waiting += 1;
        await gate.opened.finally(() => (waiting -= 1));
      }
      if (injected.answered(res)) return;
      const length = typeof model === 'string' ? opts.shortened?.[model] : undefined;
      const vectors = await opts.embedder.embed(texts);
      const data = vectors
        .map((v, index) => ({
          object: 'embedding',
          index,
          embedding: length === undefined ? Array.from(v) : shorten(v, length),
        }))
        .reverse();
      json(res, 200, {
        object: 'list',
        data,
        model: typeof model === 'string' ? model : opts.embedder.model,
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
      return;
    }
    if (req.method === 'POST' && (path === '/v1/rerank' || path === '/rerank')) {
      const { query, documents, top_n } = (body ?? {}) as Record<string, unknown>;
      try {
        const results = await opts.reranker.rerank({
          query: query as string,
          documents: documents as string[],
          topN: top_n as number | undefined,
        });
        json(res, 200, {
          results: results.map((r) => ({ index: r.index, relevance_score: r.relevanceScore })),
        });
      } catch (err) {
        if (!(err instanceof RerankBadRequest)) throw err;
        json(res, 400, { error: { message: err.message } });
      }
      return;
    }
    json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
  }

  const server = await startLoopbackBackend(handle, () => gate?.open());
  return {
    ...server,
    requests,
    failNext: (count, status) => injected.failNext(count, status),
    answerNext: (body) => injected.answerNext(body),
    hold(match = () => true) {
      gate?.open();
      let open = () => {};
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { opened, open, match };
    },
    release() {
      gate?.open();
      gate = undefined;
    },
    get waiting() {
      return waiting;
    },
  };
}

/** The first `length` components of `v`, scaled to unit length. */
function shorten(v: Float32Array, length: number): number[] {
  const head = Array.from(v.subarray(0, length));
  const norm = Math.sqrt(head.reduce((sum, x) => sum + x * x, 0)) || 1;
  return head.map((x) => x / norm);
}
