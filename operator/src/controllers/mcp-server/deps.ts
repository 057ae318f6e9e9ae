import type { KubeConfig, V1Deployment, V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EventRecorder, OwnWrites, StatusMemory } from '../../runtime/index.js';
import type { Handshake } from './handshake.js';
import type { RememberedHandshake, Timing } from './plan.js';

export const FIELD_MANAGER = 'aiplane-operator';

export interface McpServerControllerDeps {
  kc: KubeConfig;
  logger: Logger;
  events: EventRecorder;
  /** What the controller last wrote to each server's status (runtime/status-memory.ts). */
  statusMemory: StatusMemory;
  now: () => Date;
  handshake: Handshake;
  /**
   * Maps a workload's in-cluster address to the address the operator dials. In a cluster it is
   * the identity; the local environment (no kubelet, no cluster DNS) maps it to a loopback
   * port where the test harness serves the workload.
   */
  resolveWorkload: (url: string) => string;
  timing: Timing;
  /**
   * The last handshake per server (by key; the entry names the server's uid), reused until the
   * re-check or backoff is due, so the reconciles its own status write and child events cause
   * do not dial the workload again.
   */
  handshakes: Map<string, RememberedHandshake>;
  /** The children as the watch cache has them (namespace, name). */
  children: {
    deployment(namespace: string, name: string): V1Deployment | undefined;
    service(namespace: string, name: string): V1Service | undefined;
    /** The versions of the children this controller applied (their watch events are echoes). */
    applied: { deployments: OwnWrites; services: OwnWrites };
  };
}
