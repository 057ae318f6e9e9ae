export { type EventRecorder, kubeEventRecorder } from './event-recorder.js';
export { backoffDelay, type BackoffOptions } from '@aiplane/lib';
export {
  type Condition,
  type ConditionInput,
  type ConditionStatus,
  conditionsEqual,
  findCondition,
  formatConditionTime,
  isConditionTrue,
  setCondition,
  statusEqual,
} from './conditions.js';
export {
  Controller,
  type ControllerOptions,
  ownerKeys,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
  type WatchedSource,
} from './controller.js';
export {
  classifyError,
  ConflictError,
  type ErrorClassification,
  type ErrorKind,
  httpStatusOf,
  isConflict,
  isNotFound,
  kubeStatusReason,
  PermanentError,
} from '@aiplane/lib';
export { type HealthServer, type HealthServerOptions, startHealthServer } from './health-server.js';
export {
  type InformerHandlers,
  type InformerLike,
  type InformerOptions,
  ResilientInformer,
} from '@aiplane/lib';
export { type KubeRequest, kubeRequest } from '@aiplane/lib';
export {
  type LeaderElectionCallbacks,
  type LeaderElectionConfig,
  LeaderElector,
  type LeaderElectorOptions,
} from './leader-election.js';
export { coordinationLeaseClient, type LeaseClient } from './lease-client.js';
export {
  controllerLogger,
  createLogger,
  type CreateLoggerOptions,
  isSecretKey,
  type Logger,
  REDACTED,
  SECRET_FIELD_NAMES,
} from '@aiplane/lib';
export {
  type ManagedController,
  type ManagerHandle,
  type ManagerOptions,
  runManager,
  type StopReason,
} from './manager.js';
export { type ReconcileResult, runtimeMetrics, type RuntimeMetrics } from './metrics.js';
export { objectKey, parseObjectKey } from '@aiplane/lib';
export {
  patchStatus,
  type PatchStatusOptions,
  type PatchStatusResult,
  replacingMergePatch,
  type StatusTarget,
} from './status-writer.js';
export {
  DEFAULT_QUEUE_BACKOFF,
  type QueueTimers,
  systemTimers,
  WorkQueue,
  type WorkQueueOptions,
} from './work-queue.js';
