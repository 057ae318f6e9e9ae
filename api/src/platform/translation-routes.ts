import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import { callerOrganization, requirePermission } from '@aiplane/lib/auth';
import { validator } from '@aiplane/lib/service';
import type { Translations } from './translations.js';

const ResetQuery = Type.Object(
  { language: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })) },
  { additionalProperties: false },
);
const parseResetQuery = validator(ResetQuery);
const canEditConfig = requirePermission('can_edit_config');

/**
 * `/v1/translations` (spec: Endpoints): overrides of the caller's organization. Reading needs
 * only can_access_api (the router's guard); changes need can_edit_config.
 */
export function translationsRouter(opts: { translations: Translations }): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await opts.translations.all(callerOrganization(req, res)));
  });

  router.post('/reset', canEditConfig, async (req, res) => {
    const query = parseResetQuery(req.query);
    await opts.translations.reset(callerOrganization(req, res), query.language);
    res.status(204).end();
  });

  router.patch('/:language', canEditConfig, async (req, res) => {
    const updated = await opts.translations.update(
      callerOrganization(req, res),
      String(req.params.language ?? ''),
      req.body,
    );
    res.json(updated.overrides);
  });

  return router;
}
