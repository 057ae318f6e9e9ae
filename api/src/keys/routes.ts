import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import {
  generateApiKey,
  principalOf,
  type ApiKeyRecord,
  type ApiKeyStore,
} from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid, ListOf, Nullable, operation } from '@aiplane/lib/service';

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }) },
  { additionalProperties: false, title: 'CreateApiKey' },
);

const apiKeyFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  prefix: Type.String({ description: 'the first characters of the key, to recognise it' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
};
export const ApiKeySchema = Type.Object(apiKeyFields, { title: 'ApiKey' });
export const CreatedApiKeySchema = Type.Object(
  {
    ...apiKeyFields,
    key: Type.String({ description: 'the secret, `sk-svc-v1-…`: in this answer and never again' }),
  },
  { title: 'CreatedApiKey' },
);
export const ApiKeyListSchema = ListOf('api_keys', ApiKeySchema, 'ApiKeyList');

const view = (k: ApiKeyRecord) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
});

/**
 * Personal API keys (docs/adr/0004): `POST /v1/api-keys` (signed-in users only; the key is in
 * this response and nowhere else, ever), `GET /v1/api-keys`, `DELETE /v1/api-keys/{id}`.
 */
export function apiKeysRouter(opts: { apiKeys: ApiKeyStore }): Router {
  const router = Router();
  const tags = ['api-keys'];

  operation(
    router,
    {
      method: 'post',
      path: '/',
      operationId: 'createApiKey',
      summary: 'Create a personal API key',
      description:
        'Signed-in users only (a JWT, not another API key). The secret is in this answer and nowhere else, ever.',
      tags,
      body: CreateApiKeyBody,
      responses: {
        201: { description: 'The new key, with its secret.', schema: CreatedApiKeySchema },
      },
      errors: ['interactive_login_required'],
    },
    async (_req, res, { body }) => {
      const principal = principalOf(res);
      if (principal.via !== 'jwt') {
        throw new ApiError(
          'interactive_login_required',
          'API keys are created by a signed-in user, not with another API key',
        );
      }
      const fresh = generateApiKey();
      const record = await opts.apiKeys.create({
        userId: principal.userId,
        name: body.name.trim(),
        prefix: fresh.prefix,
        hash: fresh.hash,
      });
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json({ ...view(record), key: fresh.key });
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/',
      operationId: 'listApiKeys',
      summary: 'The caller’s API keys (without secrets)',
      tags,
      responses: { 200: { description: 'The keys.', schema: ApiKeyListSchema } },
    },
    async (_req, res) => {
      const keys = await opts.apiKeys.listForUser(principalOf(res).userId);
      res.json({ api_keys: keys.map(view), count: keys.length });
    },
  );

  operation(
    router,
    {
      method: 'delete',
      path: '/:id',
      operationId: 'revokeApiKey',
      summary: 'Revoke one of the caller’s API keys',
      tags,
      responses: { 204: { description: 'Revoked.' } },
      errors: ['api_key_not_found'],
    },
    async (req, res) => {
      const id = req.params.id ?? '';
      if (!isUuid(id) || !(await opts.apiKeys.revoke(principalOf(res).userId, id))) {
        throw new ApiError('api_key_not_found', 'you have no API key with this id');
      }
      res.status(204).end();
    },
  );

  return router;
}
