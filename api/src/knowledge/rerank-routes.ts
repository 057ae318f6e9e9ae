import { type Static, Type } from '@sinclair/typebox';
import { type ErrorRequestHandler, type Router, Router as newRouter } from 'express';
import { ApiError, fromBodyParser, ValidationFailed } from '@aiplane/lib/errors';
import { operation } from '@aiplane/lib/service';
import type { Rerankers } from './catalogue-engines.js';
import { engineApiError } from './engine-errors.js';
import {
  checkRerankRequest,
  MAX_RERANK_DOCUMENTS,
  MAX_RERANK_QUERY_CHARS,
  RerankBadRequest,
} from './reranker.js';

/** The common `/rerank` request (Cohere, Jina, vLLM, Infinity, LiteLLM), as documented. */
export const RerankRequestBody = Type.Object(
  {
    model: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'a catalogue model of mode `rerank`, or the local default’s name (`all-MiniLM-L6-v2`); omitted: the organization’s `reranker_model` (`/v1/config`), else the local default',
      }),
    ),
    query: Type.String({ minLength: 1, maxLength: MAX_RERANK_QUERY_CHARS }),
    documents: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_RERANK_DOCUMENTS }),
    top_n: Type.Optional(
      Type.Integer({ minimum: 1, description: 'results at most (default: every document)' }),
    ),
    return_documents: Type.Optional(
      Type.Boolean({ description: 'whether each result carries its document’s text' }),
    ),
  },
  { title: 'RerankRequest' },
);

export const RerankAnswer = Type.Object(
  {
    model: Type.String(),
    results: Type.Array(
      Type.Object({
        index: Type.Integer({ description: 'the document’s position in the request' }),
        relevance_score: Type.Number(),
        document: Type.Optional(Type.Object({ text: Type.String() })),
      }),
      { description: 'best first' },
    ),
  },
  { title: 'RerankAnswer' },
);
type RerankAnswer = Static<typeof RerankAnswer>;

/**
 * The JSON parser's refusals of a rerank body (not JSON, not UTF-8): 400 rerank_bad_request
 * like every other problem of the body, not the platform's 422 (spec: Errors, reranker).
 * Mounted after the parser, before the router.
 */
export const rerankBodyErrors: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
  const e = fromBodyParser(err);
  if (e instanceof ValidationFailed) {
    const why = e.fields.map((f) => f.message).join('; ');
    next(new ApiError('rerank_bad_request', `the body must be a JSON object (${why})`));
    return;
  }
  next(e);
};

/**
 * The body as the reranker engines check it: every problem of the query or the document list
 * (or of `model`, `top_n`, `return_documents`) is 400 `rerank_bad_request`, not a 422 (spec:
 * Errors, reranker). Fields it does not know are ignored, as the vendors' servers do.
 */
function parseRerankBody(body: unknown): {
  model: string | null | undefined;
  request: ReturnType<typeof checkRerankRequest>;
  returnDocuments: boolean;
} {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RerankBadRequest('the body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  if (b.model !== undefined && b.model !== null && typeof b.model !== 'string') {
    throw new RerankBadRequest('model must be a string');
  }
  if (b.return_documents !== undefined && typeof b.return_documents !== 'boolean') {
    throw new RerankBadRequest('return_documents must be a boolean');
  }
  const request = checkRerankRequest({ query: b.query, documents: b.documents, topN: b.top_n });
  return {
    model: b.model,
    request,
    returnDocuments: b.return_documents === true,
  };
}

/** `POST /v1/rerank` (docs/adr/0031, "The rerank route"). */
export function rerankRouter(opts: { rerankers: Rerankers }): Router {
  const router = newRouter();
  operation(
    router,
    {
      method: 'post',
      path: '/',
      operationId: 'rerank',
      summary: 'Orders documents by relevance to a query (the common /rerank shape)',
      description:
        'The request and answer of the common `/rerank` shape (Cohere, Jina, vLLM, Infinity, LiteLLM), so their clients work unchanged with this base URL. An empty or invalid query or document list is 400 `rerank_bad_request`.',
      tags: ['collections'],
      organization: true,
      serviceBody: RerankRequestBody,
      responses: { 200: { description: 'The documents, best first.', schema: RerankAnswer } },
      errors: [
        'rerank_bad_request',
        'model_not_found',
        'model_backend_unavailable',
        'model_backend_error',
      ],
    },
    async (req, res, { organizationId }) => {
      try {
        const { model, request, returnDocuments } = parseRerankBody(req.body);
        const { name, reranker } = await opts.rerankers.forRequest(organizationId, model);
        const ranked = await reranker.rerank(request);
        const answer: RerankAnswer = {
          model: name,
          results: ranked.map((r) => ({
            index: r.index,
            relevance_score: r.relevanceScore,
            ...(returnDocuments ? { document: { text: request.documents[r.index] ?? '' } } : {}),
          })),
        };
        res.json(answer);
      } catch (err) {
        throw engineApiError(err, 'rerank') ?? err;
      }
    },
  );
  return router;
}
