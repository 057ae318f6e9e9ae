import { Router } from 'express';
import {
  ORGANIZATION_HEADER,
  organizationOf,
  principalOf,
  isPlatformAdmin,
  PERMISSIONS,
} from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';

/** `GET /v1/me`: who the API takes the caller for, and the organization the request acts in. */
export function meRouter(): Router {
  const router = Router();
  router.get('/', (req, res) => {
    const p = principalOf(res);
    let organizationId: string | null = null;
    try {
      organizationId = organizationOf(req, p);
    } catch (err) {
      // Without a choosable organization the answer still says who the caller is, unless a
      // header named an organization the caller may not act in.
      if (!(err instanceof ApiError) || err.code !== 'organization_required') throw err;
    }
    res.json({
      user_id: p.userId,
      username: p.username ?? null,
      authenticated_via: p.via,
      platform_admin: isPlatformAdmin(p),
      roles: [...p.roles].sort(),
      permissions: PERMISSIONS.filter((perm) => p.roles.has(perm)),
      organizations: p.organizations,
      organization_id: organizationId,
      organization_header: ORGANIZATION_HEADER,
    });
  });
  return router;
}
