import { cosine, type Embedder } from './embedder.js';

/**
 * Orders documents by relevance to a query, in the common `/rerank` shape (Cohere, Jina,
 * vLLM, Infinity, LiteLLM): `{model, query, documents, top_n}` →
 * `{results: [{index, relevance_score}]}`, best first (docs/adr/0031).
 */
export interface RerankRequest {
  query: string;
  documents: readonly string[];
  /** Results at most (default: every document); more than there are documents is all of them. */
  topN?: number | undefined;
}

export interface RerankResult {
  /** The document's position in the request. */
  index: number;
  relevanceScore: number;
}

export interface Reranker {
  readonly model: string;
  /** Best first, at most `topN`; a bad request is RerankBadRequest, never a crash. */
  rerank(req: RerankRequest, signal?: AbortSignal): Promise<RerankResult[]>;
}

/** Documents one request may rerank (Cohere's limit). */
export const MAX_RERANK_DOCUMENTS = 1000;
/** Characters of the query, and of each document. */
export const MAX_RERANK_QUERY_CHARS = 8192;
export const MAX_RERANK_DOCUMENT_CHARS = 100_000;

/** An empty or invalid query or document list: 400 `rerank_bad_request` (spec: Errors). */
export class RerankBadRequest extends Error {
  override readonly name = 'RerankBadRequest';
}

/**
 * The request checked before any model sees it: a query that is a non-blank string, a
 * non-empty list of strings, a whole `topN` of at least 1. Its problems name the field.
 */
export function checkRerankRequest(req: unknown): RerankRequest {
  const { query, documents, topN } = (req ?? {}) as Record<string, unknown>;
  if (typeof query !== 'string') throw new RerankBadRequest('query must be a string');
  if (query.trim() === '') throw new RerankBadRequest('query must not be empty');
  if (query.length > MAX_RERANK_QUERY_CHARS) {
    throw new RerankBadRequest(`query must be at most ${MAX_RERANK_QUERY_CHARS} characters`);
  }
  if (!Array.isArray(documents)) throw new RerankBadRequest('documents must be a list of strings');
  if (documents.length === 0) throw new RerankBadRequest('documents must not be empty');
  if (documents.length > MAX_RERANK_DOCUMENTS) {
    throw new RerankBadRequest(`documents must hold at most ${MAX_RERANK_DOCUMENTS} entries`);
  }
  documents.forEach((d: unknown, i) => {
    if (typeof d !== 'string') throw new RerankBadRequest(`documents[${i}] must be a string`);
    if (d.length > MAX_RERANK_DOCUMENT_CHARS) {
      throw new RerankBadRequest(
        `documents[${i}] must be at most ${MAX_RERANK_DOCUMENT_CHARS} characters`,
      );
    }
  });
  if (topN !== undefined && (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1)) {
    throw new RerankBadRequest('top_n must be an integer of at least 1');
  }
  return { query, documents: documents as string[], topN };
}

/** Scores best first (ties keep the documents' order), cut to `topN`. */
export function bestFirst(scores: readonly number[], topN: number | undefined): RerankResult[] {
  return scores
    .map((relevanceScore, index) => ({ index, relevanceScore }))
    .sort((a, b) => b.relevanceScore - a.relevanceScore || a.index - b.index)
    .slice(0, topN ?? scores.length);
}

/** A reranker whose every request is checked (checkRerankRequest) before it ranks. */
export abstract class CheckedReranker implements Reranker {
  constructor(readonly model: string) {}

  async rerank(req: RerankRequest, signal?: AbortSignal): Promise<RerankResult[]> {
    return this.rank(checkRerankRequest(req), signal);
  }

  /** Best first, at most `topN`, for a checked request. */
  protected abstract rank(req: RerankRequest, signal?: AbortSignal): Promise<RerankResult[]>;
}

/**
 * The local default: a bi-encoder fallback, not a cross-encoder. It scores each document by
 * the cosine between its embedding and the query's, with the local embedding model. Over
 * chunks found with the same model it keeps their order and only cuts to `top_n`; a
 * cross-encoder behind `/rerank` (RemoteReranker) is what reorders for real (docs/adr/0031).
 */
export class LocalReranker extends CheckedReranker {
  constructor(private readonly embedder: Embedder) {
    super(embedder.model);
  }

  protected async rank(req: RerankRequest, signal?: AbortSignal): Promise<RerankResult[]> {
    const [query, ...documents] = await this.embedder.embed([req.query, ...req.documents], signal);
    const scores = documents.map((d) => cosine(query as Float32Array, d));
    return bestFirst(scores, req.topN);
  }
}
