export {
  controllerLogger,
  createLogger,
  type CreateLoggerOptions,
  isSecretKey,
  type Logger,
  REDACTED,
  SECRET_FIELD_NAMES,
} from './logger.js';
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
export { abortableDelay, GuardedWatch } from './kube/guarded-watch.js';
export {
  type InformerHandlers,
  type InformerLike,
  type InformerOptions,
  ResilientInformer,
} from './kube/informer.js';
export { type KubeRequest, kubeRequest } from './kube/kube-request.js';
export { objectKey, parseObjectKey } from './kube/object-key.js';
export {
  KeycloakAdminClient,
  type KeycloakAdminOptions,
  KeycloakRequestFailed,
  KeycloakUnavailable,
} from './keycloak/admin-client.js';
