import type { TenantLifecycle } from '@aiplane/crds';

/** A tenant that no longer exists, and the organization whose agents go with it. */
export interface GoneTenant {
  /** Its name (the slug), for the log. */
  tenant: string;
  /** Its recorded `status.organizationId`; undefined when none was recorded. */
  organizationId: string | undefined;
}

const organizationOf = (t: TenantLifecycle): string | undefined =>
  t.status?.organizationId || undefined;

/**
 * The organization whose agents go with a tenant the watch saw go (`ResourceCache.onGone`,
 * with the object that replaced it under its name, if any). Undefined when another live tenant
 * still records that organization (a re-created one adopted it): its agents stay. Pure:
 * `tenants` is the tenant cache's current list.
 */
export function goneTenant(
  gone: TenantLifecycle,
  replacement: TenantLifecycle | undefined,
  tenants: readonly TenantLifecycle[],
): GoneTenant | undefined {
  const uid = gone.metadata?.uid;
  const organizationId = organizationOf(gone);
  const stillOwned =
    organizationId !== undefined &&
    [...tenants, ...(replacement ? [replacement] : [])].some(
      (t) => t.metadata?.uid !== uid && organizationOf(t) === organizationId,
    );
  if (stillOwned) return undefined;
  return { tenant: gone.metadata?.name ?? gone.spec.slug, organizationId };
}

/** What the sweep may do with agents, given every live tenant. */
export type AgentSweep =
  | { sweep: true; liveOrganizationIds: string[] }
  | {
      sweep: false;
      /** Live tenants without a recorded organization, by name. */
      unprovisioned: string[];
    };

/**
 * Whether agents of organizations that no live tenant records may be swept, and the live ones.
 * `tenants` may hold the same tenant twice (the fresh LIST and the cache); a copy with an
 * organization is enough for it to be known. Pure.
 *
 * Why a live tenant without an organization stops the sweep. An agent is created only in an
 * organization a live tenant records in `status.organizationId` (`POST /v1/agents` answers 409
 * `organization_not_provisioned` otherwise), whoever asks: a member acting in their token's
 * organization or a platform admin naming one in `X-Aiplane-Organization` (the header chooses an
 * organization, it does not make one live). And the operator never clears a recorded
 * organization. So a tenant still being provisioned has no agents, and sweeping past it would be
 * safe. But a status can also be lost while the tenant stays (restored from a backup that keeps
 * no status, which is Velero's default, or written through `/status`): until the operator
 * records the organization again, that tenant's agents look like a gone tenant's, and the
 * first sweep after a restore would delete every agent of such a tenant. The two cases look
 * the same here, so the sweep leaves agents alone until every live tenant has an organization;
 * it runs again later, and the watch removes the agents of tenants deleted while an API runs.
 */
export function agentSweep(tenants: readonly TenantLifecycle[]): AgentSweep {
  const known = new Set<string>();
  const organizations = new Set<string>();
  for (const t of tenants) {
    const organizationId = organizationOf(t);
    if (organizationId === undefined) continue;
    organizations.add(organizationId);
    // Rows still under an id the tenant had before its organization was re-created are its
    // own, not a gone tenant's: they are moved, never swept (organizationMove).
    for (const id of t.status?.previousOrganizationIds ?? []) organizations.add(id);
    known.add(keyOf(t));
  }
  const unprovisioned = [
    ...new Set(tenants.filter((t) => !known.has(keyOf(t))).map((t) => t.metadata?.name ?? '')),
  ];
  return unprovisioned.length > 0
    ? { sweep: false, unprovisioned }
    : { sweep: true, liveOrganizationIds: [...organizations] };
}

const keyOf = (t: TenantLifecycle): string => t.metadata?.uid ?? `name:${t.metadata?.name ?? ''}`;

/** Rows to move from the ids a tenant's organization had before to its current one. */
export interface OrganizationMove {
  tenant: string;
  from: string[];
  to: string;
}

/**
 * What to move for a tenant whose organization was re-created (the operator records the ids it
 * replaced in `status.previousOrganizationIds`, docs/adr/0015); undefined when nothing is to
 * move. Pure.
 */
export function organizationMove(t: TenantLifecycle): OrganizationMove | undefined {
  const to = organizationOf(t);
  const from = (t.status?.previousOrganizationIds ?? []).filter((id) => id !== '' && id !== to);
  if (to === undefined || from.length === 0) return undefined;
  return { tenant: t.metadata?.name ?? t.spec.slug, from, to };
}
