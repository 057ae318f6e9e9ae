import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import {
  actingOrganization,
  hasPermission,
  ORGANIZATION_HEADER,
  principalOf,
  isPlatformAdmin,
  PERMISSIONS,
} from '@aiplane/lib/auth';
import { Nullable, operation } from '@aiplane/lib/service';

const Permissions = Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))));

/** The answer of `GET /v1/me`. */
export const MeSchema = Type.Object(
  {
    user_id: Type.String(),
    username: Nullable(Type.String()),
    authenticated_via: Type.Union([Type.Literal('jwt'), Type.Literal('api_key')]),
    platform_admin: Type.Boolean(),
    roles: Type.Array(Type.String()),
    permissions: Type.Array(Permissions.items, {
      description:
        'held in the organization the request acts in (anywhere, when none could be chosen)',
    }),
    organizations: Type.Array(
      Type.Object({ id: Type.String(), alias: Type.String(), permissions: Permissions }),
    ),
    organization_id: Nullable(Type.String({ description: 'the organization the request acts in' })),
    organization_header: Type.Literal(ORGANIZATION_HEADER),
  },
  { title: 'Me' },
);

/**
 * `GET /v1/me`: who the API takes the caller for, the organization the request acts in, and
 * the permissions held there (anywhere, when no organization could be chosen; each
 * organization's own in `organizations[].permissions`).
 */
export function meRouter(): Router {
  const router = Router();
  operation(
    router,
    {
      method: 'get',
      path: '/',
      operationId: 'getMe',
      summary: 'Who the API takes the caller for',
      description:
        'The caller’s user, roles, permissions and organizations, and the organization the request acts in (null when none can be chosen).',
      tags: ['me'],
      headers: {
        'X-Aiplane-Organization': {
          description: 'The organization to act in (see the Organization parameter).',
        },
      },
      responses: { 200: { description: 'The caller.', schema: MeSchema } },
      errors: ['organization_invalid', 'organization_access_denied'],
    },
    (req, res) => {
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
    },
  );
  return router;
}
