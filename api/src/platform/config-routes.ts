import { Router } from 'express';
import { operation } from '@aiplane/lib/service';
import { ConfigPatch, type SystemConfiguration, SystemConfigSchema } from './config.js';

const ETag = 'The version of the configuration, for If-Match and If-None-Match.';

/**
 * `/v1/config` (spec: System configuration): reading needs only can_access_api (the router's
 * guard), changing needs can_edit_config. Answers carry an ETag; a PATCH with `If-Match`
 * applies only to that version (412 otherwise), so two administrators never overwrite each
 * other silently.
 */
export function configRouter(opts: { config: SystemConfiguration }): Router {
  const router = Router();
  const tags = ['config'];

  operation(
    router,
    {
      method: 'get',
      path: '/',
      operationId: 'getConfig',
      summary: 'The system configuration of the caller’s organization',
      description: 'Defaults until it is changed.',
      tags,
      organization: true,
      headers: { 'If-None-Match': { description: 'An ETag read earlier: 304 when unchanged.' } },
      responses: {
        200: { description: 'The configuration.', schema: SystemConfigSchema, headers: { ETag } },
        304: { description: 'Unchanged since the ETag in If-None-Match.', headers: { ETag } },
      },
    },
    async (req, res, { organizationId }) => {
      const { config, etag } = await opts.config.get(organizationId);
      res.set('ETag', etag).set('Cache-Control', 'private, no-cache');
      if (req.get('if-none-match') === etag) {
        res.status(304).end();
        return;
      }
      res.json(config);
    },
  );

  operation(
    router,
    {
      method: 'patch',
      path: '/',
      operationId: 'patchConfig',
      summary: 'Change some fields of the system configuration (all or nothing)',
      description:
        'A change of `embedding_model` starts a reindex of the organization’s collection (its progress: GET /v1/collections/documents/reindex); while one runs it is 409 `reindex_running`. The new model’s backend is asked for its vectors’ length first (503/502 when it fails; nothing changes).',
      tags,
      permission: 'can_edit_config',
      organization: true,
      headers: {
        'If-Match': { description: 'Apply only to this version (an ETag read earlier), or `*`.' },
      },
      // The service checks the body itself: the renamed collection_name gets its own message.
      serviceBody: ConfigPatch,
      responses: {
        200: {
          description: 'The configuration after it.',
          schema: SystemConfigSchema,
          headers: { ETag },
        },
      },
      errors: [
        'config_version_mismatch',
        'reindex_running',
        'model_backend_unavailable',
        'model_backend_error',
      ],
    },
    async (req, res, { organizationId }) => {
      const { config, etag } = await opts.config.patch(
        organizationId,
        req.body,
        req.get('if-match'),
      );
      res.set('ETag', etag).set('Cache-Control', 'private, no-cache').json(config);
    },
  );

  return router;
}
