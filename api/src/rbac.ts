import { GROUP } from '@aiplane/crds';
import { mergeRules, type PolicyRule } from '@aiplane/lib';

/**
 * What the API does cluster-wide (tenants/store.ts, the watch caches of lib/src/service/platform.ts), nothing
 * more. Everything it does inside a tenant namespace is `API_TENANT_RULES`.
 */
export const API_RULES: readonly PolicyRule[] = mergeRules([
  // Tenant records (cluster-scoped): written by the admin routes, read from a watch cache.
  {
    apiGroups: [GROUP],
    resources: ['tenantlifecycles'],
    verbs: ['get', 'list', 'watch', 'create', 'delete'],
  },
  // The watch cache of MCP servers (all tenant namespaces at once; a miss lists one namespace).
  { apiGroups: [GROUP], resources: ['mcpservers'], verbs: ['list', 'watch'] },
]);

/**
 * What the API does inside a tenant namespace (mcp/server-store.ts, env-secrets.ts, workload-admission.ts). The chart's ClusterRole
 * `<release>-api-tenant` holds these rules and is bound to the API's ServiceAccount in each
 * tenant namespace only, by the operator (a RoleBinding, operator/src/controllers/tenant-lifecycle/access.ts):
 * the API cannot write a Secret, a Pod or an McpServer anywhere else.
 */
export const API_TENANT_RULES: readonly PolicyRule[] = mergeRules([
  // MCP servers: written by the routes; read fresh before an update.
  {
    apiGroups: [GROUP],
    resources: ['mcpservers'],
    verbs: ['get', 'create', 'update', 'delete'],
  },
  // Environment Secrets of MCP servers (written, owned, removed; never read back).
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'patch', 'delete'] },
  // Server-side dry-runs of a managed server's workload before anything is written.
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['create'] },
]);
