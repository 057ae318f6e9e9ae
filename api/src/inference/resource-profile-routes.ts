import { Router } from 'express';
import { callerOrganization, requirePermission } from '@aiplane/lib/auth';
import { ValidationFailed } from '@aiplane/lib/errors';
import type { ResourceProfiles } from './resource-profiles.js';

/** `?enabled=true|false` filters the listing; anything else is a 422. */
function enabledFilter(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ValidationFailed([{ field: 'enabled', message: 'must be true or false' }]);
}

/**
 * `/v1/resource-profiles` (spec: Resource profiles, "resource profiles settings" need
 * can_manage_models; shape in docs/adr/0023): every route, reading included, needs it.
 */
export function resourceProfilesRouter(opts: { profiles: ResourceProfiles }): Router {
  const router = Router();
  router.use(requirePermission('can_manage_models'));
  const p = opts.profiles;

  router.get('/', async (req, res) => {
    const list = await p.list(callerOrganization(req, res), enabledFilter(req.query.enabled));
    res.json({ resource_profiles: list, count: list.length });
  });

  router.post('/', async (req, res) => {
    const created = await p.create(callerOrganization(req, res), req.body);
    res.status(201).location(`/v1/resource-profiles/${created.name}`).json(created);
  });

  router.get('/:name', async (req, res) => {
    res.json(await p.get(callerOrganization(req, res), req.params.name));
  });

  router.put('/:name', async (req, res) => {
    res.json(await p.replace(callerOrganization(req, res), req.params.name, req.body));
  });

  router.post('/:name/enable', async (req, res) => {
    res.json(await p.setEnabled(callerOrganization(req, res), req.params.name, true));
  });

  router.post('/:name/disable', async (req, res) => {
    res.json(await p.setEnabled(callerOrganization(req, res), req.params.name, false));
  });

  router.delete('/:name', async (req, res) => {
    await p.remove(callerOrganization(req, res), req.params.name);
    res.status(204).end();
  });

  return router;
}
