import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import { operation } from '@aiplane/lib/service';
import {
  LanguageOverridesSchema,
  OverridesSchema,
  TRANSLATION_LIMITS,
  TranslationPatchSchema,
  type Translations,
} from './translations.js';

const ResetQuery = Type.Object(
  {
    language: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: TRANSLATION_LIMITS.languageLength,
        description: 'reset only this language (all when absent)',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `/v1/translations` (spec: Endpoints): overrides of the caller's organization. Reading needs
 * only can_access_api (the router's guard); changes need can_edit_config.
 */
export function translationsRouter(opts: { translations: Translations }): Router {
  const router = Router();
  const tags = ['translations'];

  operation(
    router,
    {
      method: 'get',
      path: '/',
      operationId: 'getTranslations',
      summary: 'Every translation override of the caller’s organization',
      tags,
      organization: true,
      responses: { 200: { description: 'The overrides.', schema: OverridesSchema } },
    },
    async (_req, res, { organizationId }) => {
      res.json(await opts.translations.all(organizationId));
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: '/reset',
      operationId: 'resetTranslations',
      summary: 'Clear the overrides (all, or one language’s)',
      tags,
      permission: 'can_edit_config',
      organization: true,
      query: ResetQuery,
      responses: { 204: { description: 'Cleared.' } },
    },
    async (_req, res, { query, organizationId }) => {
      await opts.translations.reset(organizationId, query.language);
      res.status(204).end();
    },
  );

  operation(
    router,
    {
      method: 'patch',
      path: '/:language',
      operationId: 'patchTranslations',
      summary: 'Merge a partial update into one language’s overrides',
      tags,
      permission: 'can_edit_config',
      organization: true,
      params: {
        language: Type.String({
          maxLength: TRANSLATION_LIMITS.languageLength,
          description: 'a BCP 47 language tag (en, de, pt-BR)',
        }),
      },
      // The service checks the body itself, every problem a field error of its own wording.
      serviceBody: TranslationPatchSchema,
      responses: {
        200: { description: 'The language’s overrides after it.', schema: LanguageOverridesSchema },
      },
    },
    async (req, res, { organizationId }) => {
      const updated = await opts.translations.update(
        organizationId,
        String(req.params.language ?? ''),
        req.body,
      );
      res.json(updated.overrides);
    },
  );

  return router;
}
