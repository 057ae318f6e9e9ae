import { metaTime, tenantNamespace, type TenantLifecycle } from '@aiplane/crds';
import type { ResourceCache } from '../kube/resource-cache.js';

/**
 * The namespace of an organization's tenant: the TenantLifecycle whose identity organization
 * is `organizationId` (the operator records it once the namespace exists). Undefined when the
 * organization has no live tenant.
 */
export function organizationNamespace(
  tenants: Pick<ResourceCache<TenantLifecycle>, 'list'>,
  organizationId: string,
): string | undefined {
  const tenant = tenants
    .list()
    .find(
      (t) =>
        t.status?.organizationId === organizationId &&
        metaTime(t.metadata, 'deletionTimestamp') === undefined,
    );
  return tenant ? tenantNamespace(tenant.spec.slug) : undefined;
}
