export {
  API_VERSION,
  CATEGORIES,
  CONDITION_STATUSES,
  ConditionSchema,
  ConditionsSchema,
  GROUP,
  metaTime,
  ObjectMetaSchema,
  VERSION,
  type Condition,
  type ConditionStatus,
  type ObjectMeta,
} from './meta.js';
export {
  TENANT_LIFECYCLE,
  TENANT_LIFECYCLE_KIND,
  TENANT_LIFECYCLE_PLURAL,
  TENANT_PHASES,
  TENANT_STAGES,
  TenantLifecycleSchema,
  TenantLifecycleSpecSchema,
  TenantLifecycleStatusSchema,
  tenantNamespace,
  type TenantLifecycle,
  type TenantLifecycleSpec,
  type TenantLifecycleStatus,
  type TenantPhase,
  type TenantStage,
} from './tenant-lifecycle.js';
export {
  DEFAULT_MCP_PATH,
  MCP_RUNTIMES,
  MCP_SERVER,
  MCP_SERVER_KIND,
  MCP_SERVER_PLURAL,
  MCP_SERVER_RUNTIME_RULES,
  McpServerSchema,
  McpServerSpecSchema,
  McpServerStatusSchema,
  mcpServerPath,
  ORGANIZATION_LABEL,
  type McpRuntime,
  type McpServer,
  type McpServerSpec,
  type McpServerStatus,
} from './mcp-server.js';
export type { CelRule, KindDefinition, PrinterColumn } from './schema-helpers.js';
export { KINDS, crdManifest, crdManifests, crdName } from './crd.js';
export { staleFiles, type StaleFile } from './stale-files.js';
export {
  validateMcpServer,
  validateMcpServerSpec,
  validateMcpServerStatus,
  validateTenantLifecycle,
  validateTenantLifecycleSpec,
  validateTenantLifecycleStatus,
  type ValidationError,
  type ValidationResult,
  type Validator,
} from './validate.js';
export {
  envChecksum,
  MCP_WORKLOAD_LABELS,
  mcpDeployment,
  mcpService,
  mcpWorkloadUrl,
  workloadResolver,
} from './mcp-workload.js';
