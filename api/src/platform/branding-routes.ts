import { Router } from 'express';
import { operation } from '@aiplane/lib/service';
import { type Branding, ComputedThemeSchema, ThemeSchema } from './branding.js';

/**
 * `/v1/branding/theme` (spec: Endpoints): reading needs can_access_api (the router's guard);
 * saving, previewing and resetting are branding writes and need can_edit_config.
 */
export function brandingRouter(opts: { branding: Branding }): Router {
  const router = Router();
  const tags = ['branding'];
  const write = { tags, permission: 'can_edit_config', organization: true } as const;

  operation(
    router,
    {
      method: 'get',
      path: '/theme',
      operationId: 'getTheme',
      summary: 'The branding theme of the caller’s organization',
      tags,
      organization: true,
      responses: {
        200: { description: 'The theme (defaults until one is saved).', schema: ThemeSchema },
      },
    },
    async (_req, res, { organizationId }) => {
      res.json(await opts.branding.theme(organizationId));
    },
  );

  operation(
    router,
    {
      ...write,
      method: 'put',
      path: '/theme',
      operationId: 'putTheme',
      summary: 'Replace the branding theme',
      serviceBody: ThemeSchema,
      responses: { 200: { description: 'The saved theme.', schema: ThemeSchema } },
    },
    async (req, res, { organizationId }) => {
      res.json(await opts.branding.save(organizationId, req.body));
    },
  );

  operation(
    router,
    {
      ...write,
      method: 'post',
      path: '/theme/preview',
      operationId: 'previewTheme',
      summary: 'Validate a theme and answer its CSS variables, storing nothing',
      // Acts in an organization like every branding route (400/403 for a bad organization
      // header), though a preview stores nothing.
      serviceBody: ThemeSchema,
      responses: { 200: { description: 'The computed theme.', schema: ComputedThemeSchema } },
    },
    (req, res) => {
      res.json(opts.branding.preview(req.body));
    },
  );

  operation(
    router,
    {
      ...write,
      method: 'post',
      path: '/theme/reset',
      operationId: 'resetTheme',
      summary: 'Back to the default theme',
      responses: { 200: { description: 'The default theme.', schema: ThemeSchema } },
    },
    async (_req, res, { organizationId }) => {
      res.json(await opts.branding.reset(organizationId));
    },
  );

  return router;
}
