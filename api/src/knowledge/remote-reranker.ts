import { MalformedBackendAnswer, postJson, type RemoteBackendOptions } from './openai-embedder.js';
import { bestFirst, CheckedReranker, type RerankRequest, type RerankResult } from './reranker.js';

/**
 * A reranker backend of the model catalogue (mode `rerank`) speaking the common `/rerank`
 * shape: `POST <baseUrl>/rerank {model, query, documents, top_n, return_documents: false}`,
 * answered `{results: [{index, relevance_score}]}` (Cohere, Jina, vLLM, Infinity, LiteLLM).
 * The request is checked first, so a bad one never reaches the backend; the answer is checked
 * too (every index a document's, once) and put best first.
 */
export class RemoteReranker extends CheckedReranker {
  constructor(private readonly opts: RemoteBackendOptions) {
    super(opts.model);
  }

  protected async rank(
    { query, documents, topN }: RerankRequest,
    signal?: AbortSignal,
  ): Promise<RerankResult[]> {
    const answer = await postJson(
      this.opts,
      'rerank',
      {
        model: this.opts.model,
        query,
        documents,
        ...(topN === undefined ? {} : { top_n: Math.min(topN, documents.length) }),
        return_documents: false,
      },
      signal,
    );
    return resultsOf(answer, documents.length, topN);
  }
}

/** `results[]` of a rerank answer, checked, best first, at most `topN`. */
export function resultsOf(
  answer: unknown,
  documents: number,
  topN: number | undefined,
): RerankResult[] {
  const results = (answer as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new MalformedBackendAnswer('the rerank answer has no results');
  const scores = new Array<number>(documents).fill(Number.NEGATIVE_INFINITY);
  const seen = new Set<number>();
  results.forEach((item: unknown, position) => {
    const { index, relevance_score: score } = (item ?? {}) as {
      index?: unknown;
      relevance_score?: unknown;
    };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documents) {
      throw new MalformedBackendAnswer(`results[${position}].index is not a document's`);
    }
    if (seen.has(index)) throw new MalformedBackendAnswer(`results repeat index ${index}`);
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new MalformedBackendAnswer(`results[${position}].relevance_score is not a number`);
    }
    seen.add(index);
    scores[index] = score;
  });
  return bestFirst(scores, Math.min(topN ?? documents, seen.size));
}
