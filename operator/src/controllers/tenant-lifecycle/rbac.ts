import { GROUP } from '@aiplane/crds';
import { RELEASE_PREFIX, type PolicyRule } from '@aiplane/lib';

/**
 * The chart's ClusterRoles the operator binds in each tenant namespace (access.ts): the API's
 * rules there (api/src/rbac.ts API_TENANT_RULES) and the operator's own (OPERATOR_TENANT_RULES).
 */
export const TENANT_CLUSTER_ROLES = [
  `${RELEASE_PREFIX}api-tenant`,
  `${RELEASE_PREFIX}operator-tenant`,
];

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
  // Each tenant namespace's RoleBindings to the tenant ClusterRoles (access.ts), named after
  // them: reading, changing and removing only those. Creating one (which RBAC cannot limit by
  // name) needs `bind` on its ClusterRole (RBAC's escalation rule), on those two only.
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['rolebindings'],
    verbs: ['create'],
  },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['rolebindings'],
    verbs: ['get', 'update', 'delete'],
    resourceNames: TENANT_CLUSTER_ROLES,
  },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['clusterroles'],
    verbs: ['bind'],
    resourceNames: TENANT_CLUSTER_ROLES,
  },
  // Tenant network isolation (docs/adr/0014): the ingress and egress policies of each tenant
  // namespace, watched so a deleted or edited one is repaired (server-side apply: create+patch).
  {
    apiGroups: ['networking.k8s.io'],
    resources: ['networkpolicies'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  },
];

/** Inside a tenant namespace only (bound there by access.ts, so not cluster-wide). */
export const TENANT_LIFECYCLE_TENANT_RULES: readonly PolicyRule[] = [
  // The dedicated database's credentials Secret (steps.ts ensureDatabase).
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'update'] },
];
