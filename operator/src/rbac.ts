import { mergeRules, type PolicyRule } from '@aiplane/lib';
import { MCP_SERVER_RULES } from './controllers/mcp-server/rbac.js';
import { TENANT_LIFECYCLE_RULES } from './controllers/tenant-lifecycle/rbac.js';
import { RUNTIME_RULES } from './runtime/rbac.js';

/** The operator's ClusterRole: the union of what each controller and the runtime declare. */
export const OPERATOR_RULES: readonly PolicyRule[] = mergeRules(
  RUNTIME_RULES,
  TENANT_LIFECYCLE_RULES,
  MCP_SERVER_RULES,
);
