import { Router } from 'express';
import {
  actingOrganization,
  hasPermission,
  ORGANIZATION_HEADER,
  principalOf,
  isPlatformAdmin,
  PERMISSIONS,
} from '@aiplane/lib/auth';

/**
 * `GET /v1/me`: who the API takes the caller for, the organization the request acts in, and
 * the permissions held there (anywhere, when no organization could be chosen; each
 * organization's own in `organizations[].permissions`).
 */
export function meRouter(): Router {
  const router = Router();
  router.get('/', (req, res) => {
    const p = principalOf(res);
    // Without a choosable organization the answer still says who the caller is; a header
    // naming an organization the caller may not act in is refused (403).
    const organizationId = actingOrganization(req, p) ?? null;
    res.json({
      user_id: p.userId,
      username: p.username ?? null,
      authenticated_via: p.via,
      platform_admin: isPlatformAdmin(p),
      roles: [...p.roles].sort(),
      permissions: PERMISSIONS.filter((perm) =>
        hasPermission(p, perm, organizationId ?? undefined),
      ),
      organizations: p.organizations,
      organization_id: organizationId,
      organization_header: ORGANIZATION_HEADER,
    });
  });
  return router;
}
