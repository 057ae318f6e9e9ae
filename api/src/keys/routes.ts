import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import {
  generateApiKey,
  principalOf,
  type ApiKeyRecord,
  type ApiKeyStore,
} from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid, validator } from '@aiplane/lib/service';

const CreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }) },
  { additionalProperties: false },
);
const parseCreate = validator(CreateBody);

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

  router.post('/', async (req, res) => {
    const principal = principalOf(res);
    if (principal.via !== 'jwt') {
      throw new ApiError(
        'interactive_login_required',
        'API keys are created by a signed-in user, not with another API key',
      );
    }
    const body = parseCreate(req.body);
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
  });

  router.get('/', async (_req, res) => {
    const keys = await opts.apiKeys.listForUser(principalOf(res).userId);
    res.json({ api_keys: keys.map(view), count: keys.length });
  });

  router.delete('/:id', async (req, res) => {
    const id = req.params.id ?? '';
    if (!isUuid(id) || !(await opts.apiKeys.revoke(principalOf(res).userId, id))) {
      throw new ApiError('api_key_not_found', 'you have no API key with this id');
    }
    res.status(204).end();
  });

  return router;
}
