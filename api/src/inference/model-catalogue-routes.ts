import { Type } from '@sinclair/typebox';
import { type Response, Router } from 'express';
import { isPlatformAdmin, principalOf } from '@aiplane/lib/auth';
import { ListOf, operation } from '@aiplane/lib/service';
import {
  type CatalogueEditor,
  type ModelCatalogue,
  ModelCreate,
  ModelSchema,
  ModelUpdate,
} from './model-catalogue.js';

const ModelListSchema = ListOf('models', ModelSchema, 'ModelList');

/**
 * `/v1/models`: the model catalogue of the caller's organization and the platform-wide entries
 * (docs/adr/0024). Every route needs `can_manage_models`; platform-wide entries and in-cluster
 * backends are written by platform admins only.
 */
export function modelCatalogueRouter(opts: { catalogue: ModelCatalogue }): Router {
  const router = Router();
  const c = opts.catalogue;
  const common = {
    tags: ['models'],
    permission: 'can_manage_models',
    organization: true,
    params: { id: Type.String({ format: 'uuid' }) },
  } as const;
  const one = { 200: { description: 'The model.', schema: ModelSchema } };
  const editor = (res: Response, organizationId: string): CatalogueEditor => ({
    organizationId,
    platformAdmin: isPlatformAdmin(principalOf(res)),
  });

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/',
      operationId: 'listModels',
      summary: 'The models of the caller’s organization and the platform-wide ones',
      responses: { 200: { description: 'The models, by name.', schema: ModelListSchema } },
    },
    async (_req, res, { organizationId }) => {
      const models = await c.list(organizationId);
      res.json({ models, count: models.length });
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'post',
      path: '/',
      operationId: 'createModel',
      summary: 'Add a model to the catalogue',
      body: ModelCreate,
      responses: {
        201: {
          description: 'The model (its API key is never returned).',
          schema: ModelSchema,
          headers: { Location: 'The model’s address.' },
        },
      },
      errors: ['model_exists', 'model_backend_address_invalid', 'model_catalogue_admin_only'],
    },
    async (_req, res, { body, organizationId }) => {
      const created = await c.create(editor(res, organizationId), body);
      res.status(201).location(`/v1/models/${created.id}`).json(created);
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/:id',
      operationId: 'getModel',
      summary: 'One model of the catalogue',
      responses: one,
      errors: ['model_not_found'],
    },
    async (req, res, { organizationId }) => {
      res.json(await c.get(organizationId, req.params.id ?? ''));
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'patch',
      path: '/:id',
      operationId: 'updateModel',
      summary: 'Change a model of the catalogue (fields sent are changed)',
      body: ModelUpdate,
      responses: one,
      errors: [
        'model_not_found',
        'model_backend_address_invalid',
        'model_catalogue_admin_only',
        'reindex_running',
      ],
    },
    async (req, res, { body, organizationId }) => {
      res.json(await c.update(editor(res, organizationId), req.params.id ?? '', body));
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'delete',
      path: '/:id',
      operationId: 'deleteModel',
      summary: 'Remove a model from the catalogue',
      responses: { 204: { description: 'Removed.' } },
      errors: ['model_not_found', 'model_catalogue_admin_only'],
    },
    async (req, res, { organizationId }) => {
      await c.remove(editor(res, organizationId), req.params.id ?? '');
      res.status(204).end();
    },
  );

  return router;
}
