import type { V1Deployment } from '@kubernetes/client-node';
import type { Condition, McpServerStatus } from '@aiplane/crds';
import { findCondition, setCondition } from '../../runtime/index.js';
import type { HandshakeResult } from './handshake.js';

/** What a reconcile observed of a managed server's workload. */
export interface Observation {
  generation: number;
  previous: McpServerStatus | undefined;
  deployment: V1Deployment | undefined;
  url: string;
  /** Undefined when no handshake was tried (workload not available). */
  handshake: HandshakeResult | undefined;
}

export interface Timing {
  /** How often a ready workload's handshake is re-checked. */
  recheckMs: number;
  /** First retry after a failed handshake; doubles with the failure's age up to `maxBackoffMs`. */
  minBackoffMs: number;
  maxBackoffMs: number;
}

/** The Deployment is available: rolled out to its current generation and one replica up. */
export function availability(d: V1Deployment | undefined): {
  available: boolean;
  reason: string;
  message: string;
} {
  if (!d)
    return {
      available: false,
      reason: 'DeploymentMissing',
      message: 'the Deployment does not exist yet',
    };
  const s = d.status ?? {};
  // `kubectl rollout status`: the controller saw this generation and every replica runs it,
  // so a handshake through the Service cannot reach an old pod.
  const rolledOut = (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
  const cond = (s.conditions ?? []).find((c) => c.type === 'Available');
  const available = cond?.status === 'True' && (s.availableReplicas ?? 0) >= 1;
  const updated = (s.updatedReplicas ?? 0) >= 1 && (s.replicas ?? 0) === (s.updatedReplicas ?? 0);
  if (available && rolledOut && updated) {
    return {
      available: true,
      reason: 'MinimumReplicasAvailable',
      message: 'the Deployment has 1 of 1 replicas available',
    };
  }
  if (available && !(rolledOut && updated)) {
    return {
      available: false,
      reason: 'RollingOut',
      message: 'the Deployment is rolling out a new revision',
    };
  }
  return {
    available: false,
    reason: 'DeploymentUnavailable',
    message: `the Deployment has ${s.availableReplicas ?? 0} of 1 replicas available${cond?.message ? `: ${cond.message}` : ''}`,
  };
}

/** The status to write: conditions Available, McpHandshake and Ready; `ready` only with both. */
export function planStatus(o: Observation, now: Date): McpServerStatus {
  const avail = availability(o.deployment);
  let conditions: Condition[] = o.previous?.conditions ?? [];
  const set = (
    type: string,
    status: 'True' | 'False' | 'Unknown',
    reason: string,
    message: string,
  ) => {
    conditions = setCondition(conditions, { type, status, reason, message }, o.generation, now);
  };
  set('Available', avail.available ? 'True' : 'False', avail.reason, avail.message);
  const h = o.handshake;
  if (!avail.available || !h) {
    set(
      'McpHandshake',
      'Unknown',
      'WorkloadUnavailable',
      'waiting for the workload to be available',
    );
  } else if (h.ok && 'authenticationRequired' in h) {
    set(
      'McpHandshake',
      'True',
      'AuthenticationRequired',
      'the server answers as an MCP protected resource (401 with a Bearer challenge); each user connects with their own credential',
    );
  } else if (h.ok) {
    set(
      'McpHandshake',
      'True',
      'HandshakeSucceeded',
      `${h.serverName}${h.serverVersion ? ` ${h.serverVersion}` : ''} answered with protocol ${h.protocolVersion}`,
    );
  } else {
    set('McpHandshake', 'False', 'HandshakeFailed', h.message);
  }
  const ready = avail.available && h?.ok === true;
  set(
    'Ready',
    ready ? 'True' : 'False',
    ready ? 'Ready' : avail.available ? 'HandshakeFailed' : avail.reason,
    ready
      ? 'the workload is available and speaks MCP'
      : avail.available
        ? 'the workload runs but did not complete an MCP handshake'
        : avail.message,
  );
  const s = o.deployment?.status ?? {};
  return {
    ready,
    replicas: s.replicas ?? 0,
    readyReplicas: s.readyReplicas ?? 0,
    url: o.url,
    conditions,
    observedGeneration: o.generation,
  };
}

/**
 * The status when the cluster refused a child (quota, range full, admission): `Available` and
 * `Ready` False with reason `WorkloadNotApplied` and the cluster's `message`; the rest is kept.
 */
export function planNotApplied(
  previous: McpServerStatus | undefined,
  generation: number,
  message: string,
  now: Date,
): McpServerStatus {
  let conditions: Condition[] = previous?.conditions ?? [];
  for (const type of ['Available', 'Ready']) {
    conditions = setCondition(
      conditions,
      { type, status: 'False', reason: 'WorkloadNotApplied', message },
      generation,
      now,
    );
  }
  return { ...previous, ready: false, conditions, observedGeneration: generation };
}

/** When to look again without an event: re-check a ready workload; back off a failing one. */
export function nextCheck(status: McpServerStatus, now: Date, t: Timing): number | undefined {
  const handshake = findCondition(status.conditions, 'McpHandshake');
  if (handshake?.status === 'True') return t.recheckMs;
  if (handshake?.status === 'False') {
    const failingFor = now.getTime() - Date.parse(handshake.lastTransitionTime);
    return Math.min(t.maxBackoffMs, Math.max(t.minBackoffMs, failingFor));
  }
  return undefined; // waiting for the Deployment: its watch events wake the controller
}

/** What a handshake is made against. */
export interface HandshakeTarget {
  /** The server's uid; a server re-created under the same name has another. */
  uid: string;
  /** The workload that answers: {@link workloadRevision} of its Deployment. */
  workload: string;
  /** The address dialled. */
  url: string;
}

/** A handshake's result, remembered with what it was made against. */
export interface RememberedHandshake extends HandshakeTarget {
  /** When it was made (ms since the epoch). */
  at: number;
  /** How long it stands: the re-check interval, or the failure backoff then in effect. */
  forMs: number;
  result: HandshakeResult;
}

/**
 * What of an available Deployment decides which pods answer a handshake: the Deployment itself,
 * its rolled-out generation and its replica counts. Status churn that changes none of them
 * (conditions' timestamps, an unrelated field) leaves it equal.
 */
export function workloadRevision(d: V1Deployment): string {
  const s = d.status ?? {};
  return [
    d.metadata?.uid ?? '',
    d.metadata?.generation ?? 0,
    s.observedGeneration ?? 0,
    s.replicas ?? 0,
    s.updatedReplicas ?? 0,
    s.readyReplicas ?? 0,
    s.availableReplicas ?? 0,
  ].join('/');
}

/**
 * How much longer a remembered handshake stands for this server, workload and address (ms), or
 * undefined when it must be made again: none remembered, made against something else, or as old
 * as the re-check interval or failure backoff that was in effect when it was made. A reconcile
 * that reuses it requeues after the time left, so handshakes keep the schedule of
 * {@link nextCheck} however many events (status writes, child updates) arrive in between.
 */
export function handshakeStands(
  remembered: RememberedHandshake | undefined,
  current: HandshakeTarget,
  now: Date,
): number | undefined {
  if (!remembered) return undefined;
  if (
    remembered.uid !== current.uid ||
    remembered.workload !== current.workload ||
    remembered.url !== current.url
  ) {
    return undefined;
  }
  const left = remembered.at + remembered.forMs - now.getTime();
  return left > 0 ? left : undefined;
}
