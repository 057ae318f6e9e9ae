import { type Router, Router as newRouter } from 'express';
import { principalOf } from '@aiplane/lib/auth';
import { operation } from '@aiplane/lib/service';
import { Type } from '@sinclair/typebox';
import {
  CollectionSearchAnswer,
  CollectionSearchRequest,
  type CollectionSearch,
  parseSearchRequest,
} from './collection-search.js';
import { engineApiError } from './engine-errors.js';
import type { Files } from './files.js';

/** `/v1/collections` (spec: Endpoints, collection search; ADR 0033). */
export function collectionsRouter(opts: { search: CollectionSearch; files: Files }): Router {
  const router = newRouter();
  operation(
    router,
    {
      method: 'post',
      path: '/:name/search',
      operationId: 'searchCollection',
      summary: 'The chunks nearest a query among what the caller may read',
      description:
        'Embeds `query` with the collection’s model and answers the nearest chunks of files the caller owns or that are shared with them, matching every filter (`==` with a string, `in` with a list of strings; a mismatch is 422; the old `filter` string is 422 naming `filters`). `retrieval_k` results (`/v1/config`), or `rerank_top_n` after the reranker when it is enabled.',
      tags: ['collections'],
      organization: true,
      params: {
        name: Type.String({
          description: 'the collection (`documents`: the organization’s files)',
        }),
      },
      serviceBody: CollectionSearchRequest,
      responses: {
        200: { description: 'The results, best first.', schema: CollectionSearchAnswer },
      },
      errors: [
        'collection_not_found',
        'identity_provider_unavailable',
        'model_backend_unavailable',
        'model_backend_error',
      ],
    },
    async (req, res, { organizationId }) => {
      const request = parseSearchRequest(req.body);
      const caller = await opts.files.caller(principalOf(res), organizationId);
      try {
        res.json(await opts.search.search(organizationId, req.params.name ?? '', request, caller));
      } catch (err) {
        // The embedding model or the reranker failing: 503/502, not 500 (ADR 0031).
        throw engineApiError(err) ?? err;
      }
    },
  );
  return router;
}
