import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import { ListOf, operation } from '@aiplane/lib/service';
import {
  PROFILE_NAME_PATTERN,
  ResourceProfileCreate,
  ResourceProfileReplace,
  type ResourceProfiles,
  ResourceProfileSchema,
} from './resource-profiles.js';

/** `?enabled=true|false` filters the listing; anything else is a 422. */
const ListQuery = Type.Object({
  enabled: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'only enabled (true) or disabled (false) profiles',
    }),
  ),
});
const ProfileListSchema = ListOf('resource_profiles', ResourceProfileSchema, 'ResourceProfileList');

/**
 * `/v1/resource-profiles` (spec: Resource profiles, "resource profiles settings" need
 * can_manage_models; shape in docs/adr/0023): every route, reading included, needs it.
 */
export function resourceProfilesRouter(opts: { profiles: ResourceProfiles }): Router {
  const router = Router();
  const p = opts.profiles;
  const common = {
    tags: ['resource-profiles'],
    permission: 'can_manage_models',
    organization: true,
    params: { name: Type.String({ pattern: PROFILE_NAME_PATTERN }) },
  } as const;
  const one = { 200: { description: 'The profile.', schema: ResourceProfileSchema } };
  const notFound = ['resource_profile_not_found'] as const;

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/',
      operationId: 'listResourceProfiles',
      summary: 'The resource profiles of the caller’s organization',
      query: ListQuery,
      responses: { 200: { description: 'The profiles.', schema: ProfileListSchema } },
    },
    async (_req, res, { organizationId, query }) => {
      const enabled = query.enabled === undefined ? undefined : query.enabled === 'true';
      const list = await p.list(organizationId, enabled);
      res.json({ resource_profiles: list, count: list.length });
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'post',
      path: '/',
      operationId: 'createResourceProfile',
      summary: 'Create a resource profile',
      // The service checks the body (and the rules across its fields) itself.
      serviceBody: ResourceProfileCreate,
      responses: {
        201: {
          description: 'The profile.',
          schema: ResourceProfileSchema,
          headers: { Location: 'The profile’s address.' },
        },
      },
      errors: ['resource_profile_exists'],
    },
    async (req, res, { organizationId }) => {
      const created = await p.create(organizationId, req.body);
      res.status(201).location(`/v1/resource-profiles/${created.name}`).json(created);
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/:name',
      operationId: 'getResourceProfile',
      summary: 'One resource profile',
      responses: one,
      errors: notFound,
    },
    async (req, res, { organizationId }) => {
      res.json(await p.get(organizationId, req.params.name ?? ''));
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'put',
      path: '/:name',
      operationId: 'replaceResourceProfile',
      summary: 'Replace a resource profile’s definition',
      serviceBody: ResourceProfileReplace,
      responses: one,
      errors: notFound,
    },
    async (req, res, { organizationId }) => {
      res.json(await p.replace(organizationId, req.params.name ?? '', req.body));
    },
  );

  for (const enabled of [true, false]) {
    const verb = enabled ? 'enable' : 'disable';
    operation(
      router,
      {
        ...common,
        method: 'post',
        path: `/:name/${verb}`,
        operationId: `${verb}ResourceProfile`,
        summary: `${enabled ? 'Enable' : 'Disable'} a resource profile`,
        responses: one,
        errors: notFound,
      },
      async (req, res, { organizationId }) => {
        res.json(await p.setEnabled(organizationId, req.params.name ?? '', enabled));
      },
    );
  }

  operation(
    router,
    {
      ...common,
      method: 'delete',
      path: '/:name',
      operationId: 'deleteResourceProfile',
      summary: 'Delete a resource profile',
      responses: { 204: { description: 'Deleted.' } },
      errors: notFound,
    },
    async (req, res, { organizationId }) => {
      await p.remove(organizationId, req.params.name ?? '');
      res.status(204).end();
    },
  );

  return router;
}
