export {
  controllerLogger,
  createLogger,
  type CreateLoggerOptions,
  isSecretKey,
  type Logger,
  REDACTED,
  SECRET_FIELD_NAMES,
} from './logger.js';
export { ConfigError } from './config/config-error.js';
export { loadConfigOrExit } from './config/load-config-or-exit.js';
export {
  type HealthServer,
  type HealthServerOptions,
  type MetricsRegistry,
  startHealthServer,
} from './http/health-server.js';
export { backoffDelay, type BackoffOptions } from './kube/backoff.js';
export {
  classifyError,
  ConflictError,
  type ErrorClassification,
  type ErrorKind,
  httpStatusOf,
  isConflict,
  isNotFound,
  kubeStatusReason,
  NETWORK_ERROR_CODES,
  PermanentError,
} from './kube/errors.js';
export { refusalMessage } from './kube/refusal-message.js';
export { abortableDelay, GuardedWatch } from './kube/guarded-watch.js';
export {
  type InformerHandlers,
  type InformerLike,
  type InformerOptions,
  ResilientInformer,
} from './kube/informer.js';
export {
  type KubeRequest,
  kubeRequest,
  listAll,
  type ListAllRequest,
} from './kube/kube-request.js';
export { formatKubeTime } from './kube/kube-time.js';
export { objectKey, parseObjectKey } from './kube/object-key.js';
export {
  KeycloakAdminClient,
  type KeycloakAdminOptions,
  KeycloakRequestFailed,
  KeycloakUnavailable,
} from './keycloak/admin-client.js';
export {
  addressProblem,
  type AddressProblem,
  type AddressRule,
  checkAddressSyntax,
  MAX_ADDRESS_LENGTH,
  parseAddress,
  type ParsedAddress,
} from './net/address-rules.js';
export { type BlockedRange, blockedRange, isPublicAddress } from './net/ip-ranges.js';
export {
  type DnsResolver,
  type LookupAddress,
  type LookupAll,
  type ResolvePublicOptions,
  type ResolvePublicResult,
  type ResolveRule,
  resolvePublicAddresses,
  resolverLookup,
} from './net/resolve-public.js';
export {
  checkRemoteAddress,
  type RemoteAddressCheck,
  type RemoteAddressRule,
} from './net/check-remote-address.js';
export { mergeRules, RELEASE_PREFIX, type PolicyRule } from './kube/rbac.js';
export { ResourceCache } from './kube/resource-cache.js';
export { MCP_SERVERS_PATH, TENANT_LIFECYCLES_PATH } from './kube/resource-paths.js';
