import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import { TENANT_PHASES } from '@aiplane/crds';
import { Nullable, operation } from '@aiplane/lib/service';
import { tenantRecord, type TenantRecord, TenantRecordSchema } from './record.js';
import type { TenantStore } from './store.js';

/** A namespace is `tenant-<slug>` and must be a DNS label: so a slug has at most 56 characters. */
export const SLUG_MAX = 56;

export const CreateTenantBody = Type.Object(
  {
    slug: Type.String({
      minLength: 1,
      maxLength: SLUG_MAX,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    }),
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    identity: Type.Object({ enabled: Type.Literal(true) }, { additionalProperties: false }),
    database: Type.Optional(
      Type.Object({ dedicated: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false, title: 'CreateTenant' },
);
const ListQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 200 })),
    phase: Type.Optional(Type.Union(TENANT_PHASES.map((p) => Type.Literal(p)))),
    limit: Type.Optional(Type.String({ pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$' })),
    offset: Type.Optional(Type.String({ pattern: '^(?:0|[1-9][0-9]{0,6})$' })),
  },
  { additionalProperties: false },
);
const TenantListSchema = Type.Object(
  {
    tenants: Type.Array(TenantRecordSchema),
    count: Type.Integer(),
    total: Type.Integer(),
    next_offset: Nullable(Type.Integer()),
  },
  { title: 'TenantList' },
);

function matches(r: TenantRecord, q: string): boolean {
  const needle = q.toLowerCase();
  return [r.slug, r.display_name ?? '', r.organization_id ?? ''].some((v) =>
    v.toLowerCase().includes(needle),
  );
}

/** `/v1/admin/tenants`: platform admins only; reads come from the watch cache. */
export function tenantsRouter(opts: { tenants: TenantStore }): Router {
  const router = Router();
  const common = { tags: ['tenants'], platformAdmin: 'permission_denied' } as const;

  operation(
    router,
    {
      ...common,
      method: 'post',
      path: '/',
      operationId: 'createTenant',
      summary: 'Request a tenant',
      description: 'Accepted at once (202); the operator provisions it. Poll the record.',
      body: CreateTenantBody,
      responses: { 202: { description: 'Accepted.', schema: TenantRecordSchema } },
      errors: ['tenant_slug_conflict'],
    },
    async (_req, res, { body }) => {
      const created = await opts.tenants.create({
        slug: body.slug,
        displayName: body.display_name,
        dedicatedDatabase: body.database?.dedicated ?? false,
      });
      res.status(202).json(tenantRecord(created));
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/',
      operationId: 'listTenants',
      summary: 'List tenants (newest first, paged)',
      query: ListQuery,
      responses: { 200: { description: 'One page of tenants.', schema: TenantListSchema } },
    },
    (_req, res, { query }) => {
      const limit = Number(query.limit ?? 50);
      const offset = Number(query.offset ?? 0);
      const all = opts.tenants
        .list()
        .map((t) => tenantRecord(t))
        .filter(
          (r) =>
            (query.q ? matches(r, query.q) : true) &&
            (query.phase ? r.phase === query.phase : true),
        )
        .sort(
          (a, b) =>
            (b.created_at ?? '').localeCompare(a.created_at ?? '') || a.slug.localeCompare(b.slug),
        );
      const page = all.slice(offset, offset + limit);
      res.json({
        tenants: page,
        count: page.length,
        total: all.length,
        next_offset: offset + limit < all.length ? offset + limit : null,
      });
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/:id',
      operationId: 'getTenant',
      summary: 'A tenant’s lifecycle record',
      responses: { 200: { description: 'The record.', schema: TenantRecordSchema } },
      errors: ['tenant_not_found'],
    },
    async (req, res) => {
      res.json(tenantRecord(await opts.tenants.find(req.params.id ?? '')));
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'delete',
      path: '/:id',
      operationId: 'deleteTenant',
      summary: 'Delete a tenant',
      description: 'Accepted at once (202); the record answers 404 once everything is removed.',
      responses: { 202: { description: 'Deletion accepted.', schema: TenantRecordSchema } },
      errors: ['tenant_not_found'],
    },
    async (req, res) => {
      const { tenant } = await opts.tenants.delete(req.params.id ?? '');
      res.status(202).json(tenantRecord(tenant, { deleting: true }));
    },
  );

  return router;
}
