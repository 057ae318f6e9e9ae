import { type Router, Router as newRouter } from 'express';
import { principalOf } from '@aiplane/lib/auth';
import { openEventStream, operation } from '@aiplane/lib/service';
import { Type } from '@sinclair/typebox';
import {
  CollectionSearchAnswer,
  CollectionSearchRequest,
  type CollectionSearch,
  parseSearchRequest,
} from './collection-search.js';
import { engineApiError } from './engine-errors.js';
import type { Files } from './files.js';
import { type Reindexing, ReindexProgressSchema } from './reindex.js';

/** How often the reindex event stream reads the progress. */
export const REINDEX_EVENTS_POLL_MS = 500;

/** `/v1/collections` (spec: Endpoints, collection search; ADR 0033). */
export function collectionsRouter(opts: {
  search: CollectionSearch;
  files: Files;
  reindexing: Reindexing;
}): Router {
  const router = newRouter();
  const name = {
    name: Type.String({
      description: 'the collection (`documents`: the organization’s files)',
    }),
  };
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
      params: name,
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
  reindexRoutes(router, opts.reindexing, name);
  return router;
}

/**
 * `/v1/collections/{name}/reindex` (spec: What the service does 4, Other, States and
 * transitions 3; ADR 0034): progress for every member, as JSON or an event stream; starting
 * and cancelling need can_edit_config.
 */
function reindexRoutes(
  router: Router,
  reindexing: Reindexing,
  params: Record<'name', ReturnType<typeof Type.String>>,
): void {
  const common = { tags: ['collections'], organization: true, params } as const;
  const progress = {
    description: 'The reindex and its counters.',
    schema: ReindexProgressSchema,
  };
  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/:name/reindex',
      operationId: 'getCollectionReindex',
      summary: 'The running reindex of the collection, else the last one, with its counters',
      description:
        'Counters: `total` files when it started, `completed` written with the new model, `failed` (those files are `failed` after the switch), `skipped` (deleted meanwhile, or failed their own processing). While it runs search answers from the old collection; once `finished` from the new one.',
      responses: { 200: progress },
      errors: ['collection_not_found', 'reindex_not_found'],
    },
    async (req, res, { organizationId }) => {
      res.json(await reindexing.progress(organizationId, req.params.name ?? ''));
    },
  );
  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/:name/reindex/events',
      operationId: 'followCollectionReindex',
      summary: 'The reindex’s progress as an event stream',
      description:
        '`text/event-stream`: a `progress` event (data: the progress record) now and whenever a counter or the state changes, then one `end` event (data: the final record) once it is no longer running.',
      responses: {
        200: { ...progress, contentType: 'text/event-stream' },
      },
      errors: ['collection_not_found', 'reindex_not_found'],
    },
    async (req, res, { organizationId }) => {
      const name = req.params.name ?? '';
      let current = await reindexing.progress(organizationId, name);
      const stream = openEventStream(res);
      let sent = '';
      for (;;) {
        const seen = JSON.stringify(current);
        if (seen !== sent) stream.send('progress', current);
        sent = seen;
        if (current.state !== 'running') break;
        stream.keepAlive();
        await new Promise((r) => setTimeout(r, REINDEX_EVENTS_POLL_MS));
        if (stream.gone) return;
        current = await reindexing.progress(organizationId, name);
      }
      stream.send('end', current);
      stream.end();
    },
  );
  operation(
    router,
    {
      ...common,
      method: 'post',
      path: '/:name/reindex',
      operationId: 'startCollectionReindex',
      summary: 'Reindex the collection with the configured embedding model',
      description:
        'Also when the model is the one in use (its backend’s weights changed). A change of `embedding_model` in `/v1/config`, or of the model’s name at its catalogue backend, starts one by itself. One at a time per organization.',
      permission: 'can_edit_config',
      responses: { 202: { description: 'Started.', schema: ReindexProgressSchema } },
      errors: [
        'collection_not_found',
        'reindex_running',
        'model_backend_unavailable',
        'model_backend_error',
      ],
    },
    async (req, res, { organizationId }) => {
      res.status(202).json(await reindexing.request(organizationId, req.params.name ?? ''));
    },
  );
  operation(
    router,
    {
      ...common,
      method: 'delete',
      path: '/:name/reindex',
      operationId: 'cancelCollectionReindex',
      summary: 'Cancel the running reindex',
      description:
        'The target collection is dropped and the old one stays in use; `/v1/config` names its model again. Files not reached count as `skipped`.',
      permission: 'can_edit_config',
      responses: { 200: { description: 'The cancelled reindex.', schema: ReindexProgressSchema } },
      errors: ['collection_not_found', 'reindex_not_found'],
    },
    async (req, res, { organizationId }) => {
      res.json(await reindexing.cancel(organizationId, req.params.name ?? ''));
    },
  );
}
