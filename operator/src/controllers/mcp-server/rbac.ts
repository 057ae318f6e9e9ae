import { GROUP } from '@aiplane/crds';
import type { PolicyRule } from '@aiplane/lib';

/** What the McpServer controller does in the cluster, and nothing more. */
export const MCP_SERVER_RULES: readonly PolicyRule[] = [
  { apiGroups: [GROUP], resources: ['mcpservers'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [GROUP], resources: ['mcpservers/status'], verbs: ['get', 'update', 'patch'] },
  // Owner references with blockOwnerDeletion need this where that admission plugin runs.
  { apiGroups: [GROUP], resources: ['mcpservers/finalizers'], verbs: ['update'] },
  {
    apiGroups: ['apps'],
    resources: ['deployments'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
  {
    apiGroups: [''],
    resources: ['services'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
];

/** Inside a tenant namespace only (bound there by the tenant controller, so not cluster-wide). */
export const MCP_SERVER_TENANT_RULES: readonly PolicyRule[] = [
  // The env checksum: the operator reads the server's env Secret (never logs it).
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
];
