import { Router } from 'express';
import { callerOrganization, requirePermission } from '@aiplane/lib/auth';
import type { SystemConfiguration } from './config.js';

/**
 * `/v1/config` (spec: System configuration): reading needs only can_access_api (the router's
 * guard), changing needs can_edit_config. Answers carry an ETag; a PATCH with `If-Match`
 * applies only to that version (412 otherwise), so two administrators never overwrite each
 * other silently.
 */
export function configRouter(opts: { config: SystemConfiguration }): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const { config, etag } = await opts.config.get(callerOrganization(req, res));
    res.set('ETag', etag).set('Cache-Control', 'private, no-cache');
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    res.json(config);
  });

  router.patch('/', requirePermission('can_edit_config'), async (req, res) => {
    const { config, etag } = await opts.config.patch(
      callerOrganization(req, res),
      req.body,
      req.get('if-match'),
    );
    res.set('ETag', etag).set('Cache-Control', 'private, no-cache').json(config);
  });

  return router;
}
