import { GROUP } from '@aiplane/crds';
import type { PolicyRule } from '@aiplane/lib';

/** What the TenantLifecycle controller does in the cluster, and nothing more. */
export const TENANT_LIFECYCLE_RULES: readonly PolicyRule[] = [
  {
    apiGroups: [GROUP],
    resources: ['tenantlifecycles'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
  { apiGroups: [GROUP], resources: ['tenantlifecycles/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: [GROUP], resources: ['tenantlifecycles/finalizers'], verbs: ['update'] },
  // The organization label of the tenant's McpServers, kept equal to its organization.
  { apiGroups: [GROUP], resources: ['mcpservers'], verbs: ['list', 'patch'] },
  // The tenant namespace (created, labelled, removed by the finalizer).
  {
    apiGroups: [''],
    resources: ['namespaces'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  // The dedicated database's credentials Secret in the tenant namespace.
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get', 'create', 'update', 'patch', 'delete'],
  },
];
