import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import { TENANT_PHASES } from '@aiplane/crds';
import { requirePlatformAdmin } from '@aiplane/lib/auth';
import { validator } from '@aiplane/lib/service';
import { tenantRecord, type TenantRecord } from './record.js';
import type { TenantStore } from './store.js';

/** A namespace is `tenant-<slug>` and must be a DNS label: so a slug has at most 56 characters. */
export const SLUG_MAX = 56;

const CreateBody = Type.Object(
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
  { additionalProperties: false },
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
const parseCreate = validator(CreateBody);
const parseQuery = validator(ListQuery);

function matches(r: TenantRecord, q: string): boolean {
  const needle = q.toLowerCase();
  return [r.slug, r.display_name ?? '', r.organization_id ?? ''].some((v) =>
    v.toLowerCase().includes(needle),
  );
}

/** `/v1/admin/tenants`: platform admins only; reads come from the watch cache. */
export function tenantsRouter(opts: { tenants: TenantStore }): Router {
  const router = Router();
  router.use(requirePlatformAdmin());

  router.post('/', async (req, res) => {
    const body = parseCreate(req.body);
    const created = await opts.tenants.create({
      slug: body.slug,
      displayName: body.display_name,
      dedicatedDatabase: body.database?.dedicated ?? false,
    });
    res.status(202).json(tenantRecord(created));
  });

  router.get('/', (req, res) => {
    const query = parseQuery(req.query);
    const limit = Number(query.limit ?? 50);
    const offset = Number(query.offset ?? 0);
    const all = opts.tenants
      .list()
      .map((t) => tenantRecord(t))
      .filter(
        (r) =>
          (query.q ? matches(r, query.q) : true) && (query.phase ? r.phase === query.phase : true),
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
  });

  router.get('/:id', async (req, res) => {
    res.json(tenantRecord(await opts.tenants.find(req.params.id ?? '')));
  });

  router.delete('/:id', async (req, res) => {
    const { tenant } = await opts.tenants.delete(req.params.id ?? '');
    res.status(202).json(tenantRecord(tenant, { deleting: true }));
  });

  return router;
}
