import { type Static, Type } from '@sinclair/typebox';
import { metaTime, type TenantLifecycle } from '@aiplane/crds';
import { Nullable } from '@aiplane/lib/service';

export const ConditionSchema = Type.Object(
  {
    type: Type.String(),
    status: Type.String(),
    reason: Type.String(),
    message: Type.String(),
    last_transition_time: Type.String({ format: 'date-time' }),
  },
  { title: 'Condition' },
);

/** The tenant lifecycle record as the API answers it (docs/tenants.md). */
export const TenantRecordSchema = Type.Object(
  {
    id: Type.String(),
    organization_id: Nullable(Type.String()),
    slug: Type.String(),
    display_name: Nullable(Type.String()),
    desired_state: Type.Union([Type.Literal('present'), Type.Literal('absent')]),
    created_at: Nullable(Type.String({ format: 'date-time' })),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
    generation: Type.Integer(),
    observed_generation: Nullable(Type.Integer()),
    phase: Type.String(),
    stage: Type.String(),
    services: Type.Object({
      identity: Type.Object({
        enabled: Type.Literal(true),
        ready: Type.Boolean(),
        organization_id: Nullable(Type.String()),
      }),
      database: Type.Object({
        enabled: Type.Boolean(),
        ready: Nullable(Type.Boolean()),
        name: Nullable(Type.String()),
        secret_name: Nullable(Type.String()),
      }),
    }),
    conditions: Type.Array(ConditionSchema),
  },
  { title: 'Tenant' },
);
export type TenantRecord = Static<typeof TenantRecordSchema>;

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
