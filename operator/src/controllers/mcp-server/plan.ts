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
