import type { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION, TENANT_LIFECYCLE_KIND, type TenantLifecycle } from '@aiplane/crds';
import {
  httpStatusOf,
  kubeRequest,
  type ResourceCache,
  TENANT_LIFECYCLES_PATH,
} from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid } from '@aiplane/lib/service';

export interface NewTenant {
  slug: string;
  displayName?: string | undefined;
  dedicatedDatabase: boolean;
}

/**
 * TenantLifecycle resources: reads from the watch cache, writes to the apiserver, remembered by
 * the cache (read-your-writes). The operator does the rest.
 */
export class TenantStore {
  constructor(
    private readonly kc: KubeConfig,
    private readonly cache: ResourceCache<TenantLifecycle>,
  ) {}

  list(): TenantLifecycle[] {
    return this.cache.list();
  }

  /** The tenant with this lifecycle id (the resource's uid), or 404 tenant_not_found. */
  async find(id: string): Promise<TenantLifecycle> {
    const tl = isUuid(id) ? await this.cache.byUid(id) : undefined;
    if (!tl) throw notFound(id);
    return tl;
  }

  /** Creates the resource; 409 tenant_slug_conflict when the slug is taken (or leaving). */
  async create(t: NewTenant): Promise<TenantLifecycle> {
    const obj: TenantLifecycle = {
      apiVersion: API_VERSION,
      kind: TENANT_LIFECYCLE_KIND,
      metadata: { name: t.slug },
      spec: {
        slug: t.slug,
        ...(t.displayName ? { displayName: t.displayName } : {}),
        identity: { enabled: true },
        database: { dedicated: t.dedicatedDatabase },
      },
    };
    let created: TenantLifecycle;
    try {
      created = await kubeRequest<TenantLifecycle>(this.kc, {
        method: 'POST',
        path: TENANT_LIFECYCLES_PATH,
        body: obj,
      });
    } catch (err) {
      if (httpStatusOf(err) === 409) {
        throw new ApiError(
          'tenant_slug_conflict',
          `a tenant with slug ${t.slug} exists (or is still being deleted)`,
        );
      }
      throw err;
    }
    this.cache.remember(created);
    return created;
  }

  /**
   * Deletes the tenant `id` names; answers it as it now is (marked for deletion) and whether it
   * is gone already. 404 tenant_not_found when it went meanwhile.
   */
  async delete(id: string): Promise<{ tenant: TenantLifecycle; gone: boolean }> {
    const tl = await this.find(id);
    let after: TenantLifecycle;
    try {
      after = await kubeRequest<TenantLifecycle>(this.kc, {
        method: 'DELETE',
        path: `${TENANT_LIFECYCLES_PATH}/${tl.metadata.name ?? ''}`,
        body: { preconditions: { uid: tl.metadata.uid } },
      });
    } catch (err) {
      if (httpStatusOf(err) === 404 || httpStatusOf(err) === 409) throw notFound(id);
      throw err;
    }
    // With the finalizer the object stays, marked for deletion, until the operator is done;
    // without one yet (just created) the apiserver removes it at once and answers a Status.
    const gone = after.kind !== TENANT_LIFECYCLE_KIND;
    this.cache.remember(gone ? tl : after, gone);
    return { tenant: gone ? tl : after, gone };
  }
}

function notFound(id: string): ApiError {
  return new ApiError('tenant_not_found', `no tenant has lifecycle id ${id}`);
}
