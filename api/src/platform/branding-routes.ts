import { type Request, type Response, Router } from 'express';
import { organizationOf, principalOf, requirePermission } from '@aiplane/lib/auth';
import type { Branding } from './branding.js';

/**
 * `/v1/branding/theme` (spec: Endpoints): reading needs can_access_api (the router's guard);
 * saving, previewing and resetting are branding writes and need can_edit_config.
 */
export function brandingRouter(opts: { branding: Branding }): Router {
  const router = Router();
  const organization = (req: Request, res: Response) => organizationOf(req, principalOf(res));
  const canEditConfig = requirePermission('can_edit_config');

  router.get('/theme', async (req, res) => {
    res.json(await opts.branding.theme(organization(req, res)));
  });

  router.put('/theme', canEditConfig, async (req, res) => {
    res.json(await opts.branding.save(organization(req, res), req.body));
  });

  router.post('/theme/preview', canEditConfig, (req, res) => {
    organization(req, res);
    res.json(opts.branding.preview(req.body));
  });

  router.post('/theme/reset', canEditConfig, async (req, res) => {
    res.json(await opts.branding.reset(organization(req, res)));
  });

  return router;
}
