import { Type } from '@sinclair/typebox';
import express, { type RequestHandler, Router } from 'express';
import type { Logger } from '@aiplane/lib';
import { bearerOf, principalOf } from '@aiplane/lib/auth';
import { authenticatedRouter, operation, validator } from '@aiplane/lib/service';
import {
  AnthropicMessage,
  AnthropicModelInfo,
  AnthropicModelList,
  CountTokensAnswer,
  CountTokensRequest,
  MessagesRequest,
  ModelListQuery,
} from './anthropic-schema.js';
import {
  requestId,
  VendorError,
  vendorErrorMiddleware,
  vendorNotFound,
} from './anthropic-errors.js';
import type { CallerCredential } from './agent-tools.js';
import type { Messages } from './messages.js';

/** The vendor's body limit for a messages request (images travel inline as base64). */
export const MESSAGES_BODY_LIMIT = '32mb';

const parseMessages = validator(MessagesRequest);

/**
 * How the caller authenticated (X-Api-Key wins, as in authentication), so an agent's tools
 * run through the gateway as them.
 */
function callerCredential(req: express.Request): CallerCredential {
  const key = req.get('x-api-key');
  if (key !== undefined && key !== '') return { kind: 'api_key', value: key };
  return { kind: 'bearer', value: bearerOf(req.get('authorization')) ?? '' };
}
const parseCountTokens = validator(CountTokensRequest);

const VENDOR_HEADERS = {
  'anthropic-version': { description: 'The vendor’s API version; accepted and not checked.' },
  'anthropic-beta': { description: 'The vendor’s beta features; accepted and ignored.' },
};
const DESCRIPTION =
  'The vendor-compatible API (docs/adr/0024). Refusals on this mount use the vendor’s shape, `{"type":"error","error":{"type","message"}}`, with its statuses (400, 401, 403, 404, 413, 429, 500, 529), not the platform’s envelope; each answer carries a `request-id` header.';

/**
 * `/anthropic`: the vendor-compatible messages API on the platform's model catalogue and
 * agents (spec: Compatibility messages API rules; docs/adr/0024). Authenticated like `/v1`
 * (API key as X-Api-Key or bearer, or a JWT; `can_access_api`), answering errors in the
 * vendor's shape.
 */
export function anthropicRouter(opts: {
  messages: Messages;
  authenticate: RequestHandler;
  logger: Logger;
}): Router {
  const outer = Router();
  outer.use(requestId);
  const v1 = authenticatedRouter(Router(), opts.authenticate, 'can_access_api');
  v1.use(express.json({ limit: MESSAGES_BODY_LIMIT }));
  const m = opts.messages;
  const common = {
    tags: ['messages'],
    organization: true,
    headers: VENDOR_HEADERS,
    description: DESCRIPTION,
  } as const;

  operation(
    v1,
    {
      ...common,
      method: 'post',
      path: '/messages',
      operationId: 'createMessage',
      summary: 'Create a message (the vendor’s Messages API), streaming with `stream: true`',
      serviceBody: MessagesRequest,
      responses: {
        200: {
          description:
            'The message; with `stream: true` a `text/event-stream` of message_start, content_block_start, ping, content_block_delta, content_block_stop, message_delta, message_stop (and `error` if the backend fails mid-stream).',
          schema: AnthropicMessage,
        },
      },
    },
    async (req, res, { organizationId }) => {
      await m.create(
        organizationId,
        parseMessages(req.body),
        res,
        callerCredential(req),
        principalOf(res),
      );
    },
  );

  operation(
    v1,
    {
      ...common,
      method: 'post',
      path: '/messages/count_tokens',
      operationId: 'countMessageTokens',
      summary: 'Estimate a request’s input tokens without calling any model',
      serviceBody: CountTokensRequest,
      responses: { 200: { description: 'The estimate.', schema: CountTokensAnswer } },
    },
    async (req, res, { organizationId }) => {
      const body = parseCountTokens(req.body);
      res.json({ input_tokens: await m.countTokens(organizationId, principalOf(res), body) });
    },
  );

  operation(
    v1,
    {
      ...common,
      method: 'get',
      path: '/models',
      operationId: 'listVendorModels',
      summary: 'The chat models and agents the caller may use, in the vendor’s list shape',
      query: ModelListQuery,
      responses: { 200: { description: 'One page.', schema: AnthropicModelList } },
    },
    async (_req, res, { organizationId, query }) => {
      const all = await m.models(organizationId, principalOf(res));
      res.json(page(all, query));
    },
  );

  operation(
    v1,
    {
      ...common,
      method: 'get',
      path: '/models/:model_id',
      operationId: 'getVendorModel',
      summary:
        'One model or agent by id (`anthropic-model-<name>`, a bare name, `anthropic-agent-<uuid>`)',
      params: { model_id: Type.String() },
      responses: { 200: { description: 'The model.', schema: AnthropicModelInfo } },
    },
    async (req, res, { organizationId }) => {
      res.json(await m.model(organizationId, principalOf(res), req.params.model_id ?? ''));
    },
  );

  outer.use('/v1', v1);
  outer.use(vendorNotFound);
  outer.use(vendorErrorMiddleware(opts.logger));
  return outer;
}

/** The vendor's pagination: `limit` (1–1000, default 20), `after_id` or `before_id`. */
export function page<T extends { id: string }>(
  all: T[],
  query: { limit?: string; after_id?: string; before_id?: string },
): { data: T[]; has_more: boolean; first_id: string | null; last_id: string | null } {
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new VendorError('invalid_request_error', 'limit: must be an integer from 1 to 1000');
  }
  let data: T[];
  let hasMore: boolean;
  if (query.before_id !== undefined) {
    const end = all.findIndex((x) => x.id === query.before_id);
    const upTo = end === -1 ? 0 : end;
    const start = Math.max(0, upTo - limit);
    data = all.slice(start, upTo);
    hasMore = start > 0;
  } else {
    const after = query.after_id === undefined ? -1 : all.findIndex((x) => x.id === query.after_id);
    const start = query.after_id !== undefined && after === -1 ? all.length : after + 1;
    data = all.slice(start, start + limit);
    hasMore = start + limit < all.length;
  }
  return {
    data,
    has_more: hasMore,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
  };
}
