import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  API_VERSION,
  TENANT_LIFECYCLE_KIND,
  TENANT_PHASES,
  type TenantLifecycle,
} from '@aiplane/crds';
import { httpStatusOf, kubeRequest } from '@aiplane/lib';
import { requirePlatformAdmin } from '../auth/middleware.js';
import { ApiError } from '../errors/api-error.js';
import type { ResourceCache } from '../kube/resource-cache.js';
import { isUuid, validator } from '../validation.js';
import { tenantRecord, type TenantRecord } from './tenant-record.js';
import { TENANT_LIFECYCLES_PATH } from '../kube/resource-paths.js';

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
const PATH = TENANT_LIFECYCLES_PATH;

function matches(r: TenantRecord, q: string): boolean {
  const needle = q.toLowerCase();
  return [r.slug, r.display_name ?? '', r.organization_id ?? ''].some((v) =>
    v.toLowerCase().includes(needle),
  );
}

/** `/v1/admin/tenants`: platform admins only; reads come from the watch cache. */
export function tenantsRouter(opts: {
  kc: KubeConfig;
  tenants: ResourceCache<TenantLifecycle>;
}): Router {
  const router = Router();
  router.use(requirePlatformAdmin());

  const find = async (id: string): Promise<TenantLifecycle> => {
    const tl = isUuid(id) ? await opts.tenants.byUid(id) : undefined;
    if (!tl) throw new ApiError('tenant_not_found', `no tenant has lifecycle id ${id}`);
    return tl;
  };

  router.post('/', async (req, res) => {
    const body = parseCreate(req.body);
    const obj: TenantLifecycle = {
      apiVersion: API_VERSION,
      kind: TENANT_LIFECYCLE_KIND,
      metadata: { name: body.slug },
      spec: {
        slug: body.slug,
        ...(body.display_name ? { displayName: body.display_name } : {}),
        identity: { enabled: true },
        database: { dedicated: body.database?.dedicated ?? false },
      },
    };
    let created: TenantLifecycle;
    try {
      created = await kubeRequest<TenantLifecycle>(opts.kc, {
        method: 'POST',
        path: PATH,
        body: obj,
      });
    } catch (err) {
      if (httpStatusOf(err) === 409) {
        throw new ApiError(
          'tenant_slug_conflict',
          `a tenant with slug ${body.slug} exists (or is still being deleted)`,
        );
      }
      throw err;
    }
    opts.tenants.remember(created);
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
    res.json(tenantRecord(await find(req.params.id ?? '')));
  });

  router.delete('/:id', async (req, res) => {
    const tl = await find(req.params.id ?? '');
    let after: TenantLifecycle;
    try {
      after = await kubeRequest<TenantLifecycle>(opts.kc, {
        method: 'DELETE',
        path: `${PATH}/${tl.metadata.name ?? ''}`,
        body: { preconditions: { uid: tl.metadata.uid } },
      });
    } catch (err) {
      if (httpStatusOf(err) === 404 || httpStatusOf(err) === 409) {
        throw new ApiError('tenant_not_found', `no tenant has lifecycle id ${req.params.id ?? ''}`);
      }
      throw err;
    }
    // With the finalizer the object stays, marked for deletion, until the operator is done;
    // without one yet (just created) the apiserver removes it at once and answers a Status.
    const gone = after.kind !== TENANT_LIFECYCLE_KIND;
    opts.tenants.remember(gone ? tl : after, gone);
    res.status(202).json(tenantRecord(gone ? tl : after, { deleting: true }));
  });

  return router;
}
