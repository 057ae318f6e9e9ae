import { Router } from 'express';
import { callerOrganization, requirePermission } from '@aiplane/lib/auth';
import type { Branding } from './branding.js';

/**
 * `/v1/branding/theme` (spec: Endpoints): reading needs can_access_api (the router's guard);
 * saving, previewing and resetting are branding writes and need can_edit_config.
 */
export function brandingRouter(opts: { branding: Branding }): Router {
  const router = Router();
  const canEditConfig = requirePermission('can_edit_config');

  router.get('/theme', async (req, res) => {
    res.json(await opts.branding.theme(callerOrganization(req, res)));
  });

  router.put('/theme', canEditConfig, async (req, res) => {
    res.json(await opts.branding.save(callerOrganization(req, res), req.body));
  });

  router.post('/theme/preview', canEditConfig, (req, res) => {
    // Acts in an organization like every branding route (400/403 for a bad organization
    // header), though a preview stores nothing.
    callerOrganization(req, res);
    res.json(opts.branding.preview(req.body));
  });

  router.post('/theme/reset', canEditConfig, async (req, res) => {
    res.json(await opts.branding.reset(callerOrganization(req, res)));
  });

  return router;
}
