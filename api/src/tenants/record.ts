import { metaTime, type TenantLifecycle } from '@aiplane/crds';

/** The tenant lifecycle record as the API answers it (docs/tenants.md). */
export interface TenantRecord {
  id: string;
  organization_id: string | null;
  slug: string;
  display_name: string | null;
  desired_state: 'present' | 'absent';
  created_at: string | null;
  updated_at: string | null;
  generation: number;
  observed_generation: number | null;
  phase: string;
  stage: string;
  services: {
    identity: { enabled: true; ready: boolean; organization_id: string | null };
    database: {
      enabled: boolean;
      ready: boolean | null;
      name: string | null;
      secret_name: string | null;
    };
  };
  conditions: {
    type: string;
    status: string;
    reason: string;
    message: string;
    last_transition_time: string;
  }[];
}

/** `deleting` marks a record whose deletion was just accepted (the reply may predate the mark). */
export function tenantRecord(tl: TenantLifecycle, opts: { deleting?: boolean } = {}): TenantRecord {
  const s = tl.status;
  const deleting =
    opts.deleting === true || metaTime(tl.metadata, 'deletionTimestamp') !== undefined;
  const created = metaTime(tl.metadata, 'creationTimestamp') ?? null;
  const dedicated = tl.spec.database?.dedicated === true;
  const organizationId = s?.organizationId ?? s?.services?.identity?.organizationId ?? null;
  return {
    id: tl.metadata.uid ?? '',
    organization_id: organizationId,
    slug: tl.spec.slug,
    display_name: tl.spec.displayName ?? null,
    desired_state: deleting ? 'absent' : 'present',
    created_at: created,
    updated_at: s?.lastUpdateTime ?? created,
    generation: tl.metadata.generation ?? 1,
    observed_generation: s?.observedGeneration ?? null,
    // Before the operator's first report the request is accepted and waiting: Pending.
    phase: deleting ? 'Deleting' : (s?.phase ?? 'Pending'),
    stage: s?.stage ?? 'Accepted',
    services: {
      identity: {
        enabled: true,
        ready: s?.services?.identity?.ready ?? false,
        organization_id: organizationId,
      },
      database: {
        enabled: dedicated,
        ready: dedicated ? (s?.services?.database?.ready ?? false) : null,
        name: s?.services?.database?.name ?? null,
        secret_name: s?.services?.database?.secretRef?.name ?? null,
      },
    },
    conditions: (s?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      last_transition_time: c.lastTransitionTime,
    })),
  };
}
