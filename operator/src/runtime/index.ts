export { type EventRecorder, kubeEventRecorder } from './event-recorder.js';
export {
  type Condition,
  type ConditionInput,
  type ConditionStatus,
  conditionsEqual,
  findCondition,
  isConditionTrue,
  setCondition,
  statusEqual,
} from './conditions.js';
export {
  Controller,
  type ControllerOptions,
  labelSelector,
  ownerKeys,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
  type WatchedSource,
} from './controller.js';
export {
  type LeaderElectionCallbacks,
  type LeaderElectionConfig,
  LeaderElector,
  type LeaderElectorOptions,
} from './leader-election.js';
export { coordinationLeaseClient, type LeaseClient } from './lease-client.js';
export {
  type ManagedController,
  type ManagerHandle,
  type ManagerOptions,
  runManager,
  type StopReason,
} from './manager.js';
export { type ReconcileResult, runtimeMetrics, type RuntimeMetrics } from './metrics.js';
export {
  patchStatus,
  type PatchStatusOptions,
  type PatchStatusResult,
  replacingMergePatch,
  type StatusTarget,
} from './status-writer.js';
export { OwnWrites } from './own-writes.js';
export { StatusMemory } from './status-memory.js';
export { type StatusKind, type StatusObject, writeStatus } from './write-status.js';
export {
  DEFAULT_QUEUE_BACKOFF,
  type QueueTimers,
  systemTimers,
  WorkQueue,
  type WorkQueueOptions,
} from './work-queue.js';
