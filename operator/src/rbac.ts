import { mergeRules, type PolicyRule } from '@aiplane/lib';
import { MCP_SERVER_RULES, MCP_SERVER_TENANT_RULES } from './controllers/mcp-server/rbac.js';
import {
  TENANT_LIFECYCLE_RULES,
  TENANT_LIFECYCLE_TENANT_RULES,
} from './controllers/tenant-lifecycle/rbac.js';
import { LEADER_ELECTION_RULES, RUNTIME_RULES } from './runtime/rbac.js';

/** The operator's ClusterRole: the union of what each controller and the runtime declare. */
export const OPERATOR_RULES: readonly PolicyRule[] = mergeRules(
  RUNTIME_RULES,
  TENANT_LIFECYCLE_RULES,
  MCP_SERVER_RULES,
);

/**
 * The operator's rules inside tenant namespaces (the chart's `<release>-operator-tenant`, bound
 * there by the operator itself): Secrets, so it reads none outside them.
 */
export const OPERATOR_TENANT_RULES: readonly PolicyRule[] = mergeRules(
  TENANT_LIFECYCLE_TENANT_RULES,
  MCP_SERVER_TENANT_RULES,
);

/** The operator's Role in its own namespace (the release's): what only happens there. */
export const OPERATOR_NAMESPACE_RULES: readonly PolicyRule[] = mergeRules(LEADER_ELECTION_RULES);
