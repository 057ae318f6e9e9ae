import type { TenantLifecycle } from '@aiplane/crds';
import { metaTime } from '@aiplane/crds';
import type { ReconcileContext, ReconcileOutcome } from '../../runtime/index.js';
import {
  type CrashPoint,
  FINALIZER,
  NAMESPACE_RECHECK_MS,
  type TenantControllerDeps,
} from './deps.js';
import { ensureTenantAccess } from './access.js';
import { finalizeTenant, setFinalizer } from './finalize.js';
import { planEvents, planStatus, type StepState } from './plan.js';
import { relabelServers } from './server-labels.js';
import { writeTenantStatus } from './status.js';
import { ensureNetworkPolicies } from './ensure-network-policies.js';
import { ensureDatabase, ensureNamespace, ensureOrganization } from './steps.js';

/** A step failed; its condition is written; retry with the queue's backoff. */
export class StepFailed extends Error {}

function crashPoint(d: TenantControllerDeps, tl: TenantLifecycle, stage: CrashPoint): void {
  const c = d.crashAfter;
  if (c?.stage === stage && (!c.slug || c.slug === tl.spec.slug))
    process.kill(process.pid, 'SIGKILL');
}

const waiting = (reason: string, message: string): StepState => ({
  state: 'progressing',
  reason,
  message,
});

/**
 * One pass over a TenantLifecycle, level-triggered: deletion first (before any shortcut), then
 * the finalizer, then namespace → organization → database in order, each idempotent; status is
 * written once at the end, then events.
 */
export async function reconcileTenant(
  d: TenantControllerDeps,
  { object: tl, logger }: ReconcileContext<TenantLifecycle>,
): Promise<ReconcileOutcome> {
  if (!tl) return;
  if (metaTime(tl.metadata, 'deletionTimestamp')) return finalizeTenant(d, tl);
  if (!(tl.metadata.finalizers ?? []).includes(FINALIZER)) {
    await setFinalizer(d, tl, true);
    return; // the update comes back through the watch
  }

  // The namespace is ready once its NetworkPolicies are in place (docs/adr/0014) and then the
  // API (and the operator) may work in it (access.ts): isolation before anything runs there.
  const namespace = await ensureTenantAccess(
    d,
    tl,
    await ensureNetworkPolicies(d.networkPolicies, tl, await ensureNamespace(d, tl)),
  );
  crashPoint(d, tl, 'Namespace');
  const identity: StepState & { organizationId?: string } =
    namespace.state === 'ready'
      ? await ensureOrganization(d, tl)
      : waiting('WaitingForNamespace', 'waiting for the namespace');
  crashPoint(d, tl, 'Identity');
  // A re-created organization has a new id: the tenant's servers follow it in this pass. A
  // failure does not hold the status back; it is thrown after it (retried with backoff).
  const relabelFailure =
    identity.state === 'ready' && identity.organizationId
      ? await relabelServers(d, tl, identity.organizationId).then(
          () => undefined,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        )
      : undefined;
  const dedicated = tl.spec.database?.dedicated === true;
  const database = !dedicated
    ? undefined
    : identity.state === 'ready'
      ? await ensureDatabase(d, tl)
      : waiting('WaitingForIdentity', 'waiting for the identity organization');
  if (dedicated) crashPoint(d, tl, 'Database');

  const observation = {
    generation: tl.metadata.generation ?? 0,
    previous: tl.status,
    deleting: false,
    dedicatedDatabase: dedicated,
    namespace,
    identity,
    database,
  };
  const next = planStatus(observation, d.now());
  const written = await writeTenantStatus(d, tl, next);
  logger.debug(
    {
      phase: next.phase,
      stage: next.stage,
      namespace: namespace.reason,
      identity: identity.reason,
      database: database?.reason,
      written,
    },
    'tenant reconciled',
  );
  for (const e of planEvents(observation, next)) d.events.record(tl, e.type, e.reason, e.message);

  if (relabelFailure !== undefined) throw relabelFailure;
  const steps = [namespace, identity, database].filter((s): s is StepState => s !== undefined);
  if (identity.reason === 'OrganizationMissing') return { requeueAfter: d.repairDelayMs };
  const failure = steps.find((s) => s.state === 'failed');
  if (failure) throw new StepFailed(`${failure.reason}: ${failure.message}`);
  // Only the namespace step progresses (a namespace being removed): its watch wakes us.
  if (steps.some((s) => s.state === 'progressing')) return { requeueAfter: NAMESPACE_RECHECK_MS };
  return { requeueAfter: d.healthCheckMs };
}
