import { GROUP } from '@aiplane/crds';
import { mergeRules, type PolicyRule } from '@aiplane/lib';

/** What the API does in the cluster (routes/tenants.ts, mcp/server-store.ts), nothing more. */
export const API_RULES: readonly PolicyRule[] = mergeRules([
  // Tenant records: written by the admin routes, read from a watch cache.
  {
    apiGroups: [GROUP],
    resources: ['tenantlifecycles'],
    verbs: ['get', 'list', 'watch', 'create', 'delete'],
  },
  // MCP servers in tenant namespaces.
  {
    apiGroups: [GROUP],
    resources: ['mcpservers'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
  },
  // Environment Secrets of MCP servers (written, owned, removed; never read back).
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'patch', 'delete'] },
  // Server-side dry-runs of a managed server's workload before anything is written.
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['create'] },
]);

/** What the gateway reads: which server an id is, and which namespace is whose. */
export const GATEWAY_RULES: readonly PolicyRule[] = mergeRules([
  {
    apiGroups: [GROUP],
    resources: ['mcpservers', 'tenantlifecycles'],
    verbs: ['get', 'list', 'watch'],
  },
]);
