export { ConfigError, loadOperatorConfig, type OperatorConfig } from './config.js';
export { type ControllerFactory, type OperatorDeps, startOperator } from './operator.js';
export { allControllers } from './controllers/index.js';
export { OPERATOR_NAMESPACE_RULES, OPERATOR_RULES, OPERATOR_TENANT_RULES } from './rbac.js';
export { TENANT_CLUSTER_ROLES } from './controllers/tenant-lifecycle/rbac.js';
export { KeycloakOrganizations } from './providers/identity/index.js';
