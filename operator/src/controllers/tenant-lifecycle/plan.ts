import type { Condition, TenantLifecycleStatus, TenantPhase, TenantStage } from '@aiplane/crds';
import { setCondition } from '../../runtime/index.js';

/** What one provisioning step found. `failed` is broken or refused; `progressing` is on its way. */
export interface StepState {
  state: 'ready' | 'progressing' | 'failed';
  reason: string;
  message: string;
}

export interface TenantObservation {
  generation: number;
  previous: TenantLifecycleStatus | undefined;
  deleting: boolean;
  dedicatedDatabase: boolean;
  namespace: StepState;
  identity: StepState & { organizationId?: string };
  /** Absent when no dedicated database is requested. */
  database?: StepState & { name?: string; secretName?: string };
}

export const CONDITION = {
  namespace: 'NamespaceReady',
  identity: 'IdentityReady',
  database: 'DatabaseReady',
  ready: 'Ready',
} as const;

const NOT_REQUESTED: StepState = {
  state: 'ready',
  reason: 'NotRequested',
  message: 'no dedicated database was requested',
};

const toStatus = (s: StepState): Condition['status'] => (s.state === 'ready' ? 'True' : 'False');

/**
 * The status for an observation: conditions per service plus Ready, the stage reached in order
 * (Accepted → Namespace → Identity → Database → Ready), and the phase. Degraded means a tenant
 * that was Ready (or Degraded) has a service that is not ready now.
 */
export function planStatus(o: TenantObservation, now: Date): TenantLifecycleStatus {
  const database = o.database ?? NOT_REQUESTED;
  const steps: [keyof typeof CONDITION, StepState][] = [
    ['namespace', o.namespace],
    ['identity', o.identity],
    ['database', database],
  ];
  let conditions = o.previous?.conditions ?? [];
  for (const [key, s] of steps) {
    conditions = setCondition(
      conditions,
      { type: CONDITION[key], status: toStatus(s), reason: s.reason, message: s.message },
      o.generation,
      now,
    );
  }
  const blocking = steps.find(([, s]) => s.state !== 'ready');
  conditions = setCondition(
    conditions,
    blocking
      ? {
          type: CONDITION.ready,
          status: 'False',
          reason: blocking[1].reason,
          message: `${CONDITION[blocking[0]]}: ${blocking[1].message}`,
        }
      : {
          type: CONDITION.ready,
          status: 'True',
          reason: 'TenantReady',
          message: 'every service is ready',
        },
    o.generation,
    now,
  );

  let stage: TenantStage = 'Accepted';
  if (o.namespace.state === 'ready') {
    stage = 'Namespace';
    if (o.identity.state === 'ready') {
      stage = o.database ? (database.state === 'ready' ? 'Database' : 'Identity') : 'Identity';
      if (!blocking) stage = 'Ready';
    }
  }

  const wasUp = o.previous?.phase === 'Ready' || o.previous?.phase === 'Degraded';
  const phase: TenantPhase = o.deleting
    ? 'Deleting'
    : !blocking
      ? 'Ready'
      : wasUp
        ? 'Degraded'
        : 'Provisioning';

  const organizationId = o.identity.organizationId ?? o.previous?.organizationId ?? null;
  const previousOrganizationIds = organizationHistory(o.previous, organizationId);
  const status: TenantLifecycleStatus = {
    phase,
    stage,
    observedGeneration: o.generation,
    conditions,
    organizationId,
    ...(previousOrganizationIds.length > 0 ? { previousOrganizationIds } : {}),
    services: {
      identity: {
        ready: o.identity.state === 'ready',
        organizationId: o.identity.organizationId ?? o.previous?.organizationId ?? null,
      },
      database: o.database
        ? {
            ready: o.database.state === 'ready',
            name: o.database.name ?? null,
            secretRef: o.database.secretName ? { name: o.database.secretName } : null,
          }
        : null,
    },
    lastUpdateTime: o.previous?.lastUpdateTime,
  };
  return status;
}

/** How many replaced organization ids a status keeps (the CRD's maxItems). */
export const ORGANIZATION_HISTORY = 16;

/**
 * The organizations the tenant had before `current`, oldest first: the recorded one joins them
 * when a re-created organization replaces it (docs/adr/0015). The API moves what it keeps under
 * them to the current id; until it has, the rows count as the tenant's.
 */
export function organizationHistory(
  previous: TenantLifecycleStatus | undefined,
  current: string | null,
): string[] {
  const history = (previous?.previousOrganizationIds ?? []).filter((id) => id !== current);
  const recorded = previous?.organizationId;
  if (recorded && current && recorded !== current && !history.includes(recorded)) {
    history.push(recorded);
  }
  return history.slice(-ORGANIZATION_HISTORY);
}

export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * Events for a pass: a step that became ready (Normal), a step that failed with a reason it did
 * not have before (Warning), and the tenant becoming Ready or leaving it.
 */
export function planEvents(o: TenantObservation, next: TenantLifecycleStatus): PlannedEvent[] {
  const before = o.previous?.conditions ?? [];
  const events: PlannedEvent[] = [];
  const steps: [keyof typeof CONDITION, StepState | undefined][] = [
    ['namespace', o.namespace],
    ['identity', o.identity],
    ['database', o.database],
  ];
  for (const [key, s] of steps) {
    if (!s) continue;
    const old = before.find((c) => c.type === CONDITION[key]);
    if (s.state === 'ready' && old?.status !== 'True') {
      events.push({ type: 'Normal', reason: s.reason, message: s.message });
    } else if (s.state === 'failed' && (old?.status !== 'False' || old.reason !== s.reason)) {
      events.push({ type: 'Warning', reason: s.reason, message: s.message });
    }
  }
  if (next.phase !== o.previous?.phase && (next.phase === 'Ready' || next.phase === 'Degraded')) {
    events.push(
      next.phase === 'Ready'
        ? { type: 'Normal', reason: 'TenantReady', message: 'every service is ready' }
        : {
            type: 'Warning',
            reason: 'TenantDegraded',
            message: 'a service that was ready is not any more',
          },
    );
  }
  return events;
}
