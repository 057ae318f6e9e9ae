import { GROUP, TENANT_LIFECYCLE_PLURAL, VERSION, type TenantLifecycle } from '@aiplane/crds';
import { isNotFound, kubeRequest } from '@aiplane/lib';
import type { ReconcileOutcome } from '../../runtime/index.js';
import {
  FINALIZER,
  NAMESPACE_RECHECK_MS,
  namespaceOf,
  TENANT_UID_LABEL,
  type TenantControllerDeps,
} from './deps.js';
import { writeTenantStatus } from './status.js';

/** Sets or clears our finalizer (merge patch with the object's resourceVersion: a race is a 409 and a requeue). */
export async function setFinalizer(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
  present: boolean,
): Promise<void> {
  const others = (tl.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
  await kubeRequest(d.kc, {
    method: 'PATCH',
    path: `/apis/${GROUP}/${VERSION}/${TENANT_LIFECYCLE_PLURAL}/${tl.metadata.name ?? ''}`,
    contentType: 'application/merge-patch+json',
    body: {
      metadata: {
        resourceVersion: tl.metadata.resourceVersion,
        finalizers: present ? [...others, FINALIZER] : others,
      },
    },
  });
}

/**
 * Deletion: the database and its owner role, the organization, then the namespace (waiting for
 * it to go), and only then the finalizer. Only what carries this tenant's uid is removed.
 */
export async function finalizeTenant(
  d: TenantControllerDeps,
  cached: TenantLifecycle,
): Promise<ReconcileOutcome> {
  let tl = cached;
  if (!(tl.metadata.finalizers ?? []).includes(FINALIZER)) return;
  const uid = tl.metadata.uid ?? '';
  const slug = tl.spec.slug;
  if (tl.status?.phase !== 'Deleting') {
    if (await writeTenantStatus(d, tl, { ...tl.status, phase: 'Deleting' })) {
      d.events.record(tl, 'Normal', 'DeletionStarted', `removing the services of tenant ${slug}`);
      // The finalizer's removal below goes over the version this write made.
      tl = d.statusMemory?.view(tl) ?? tl;
    }
  }

  if (d.databases) {
    await d.databases.remove({ slug, uid });
  } else if (tl.spec.database?.dedicated) {
    throw new Error(
      'cannot remove the dedicated database: the operator has no database cluster configured',
    );
  }

  if (!d.organizations && tl.status?.organizationId) {
    throw new Error(
      'cannot remove the organization: the operator has no identity provider configured',
    );
  }
  if (d.organizations) {
    const org = await d.organizations.findByAlias(slug);
    if (org?.tenantUid === uid) await d.organizations.delete(org.id);
  }

  const name = namespaceOf(slug);
  try {
    const ns = await d.core.readNamespace({ name });
    if (ns.metadata?.labels?.[TENANT_UID_LABEL] === uid) {
      if (!ns.metadata.deletionTimestamp) await d.core.deleteNamespace({ name });
      // The namespace controller empties it; its deletion event (the namespace watch) wakes us.
      return { requeueAfter: NAMESPACE_RECHECK_MS };
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }

  // A stale resourceVersion (a change since the cache's copy) is a 409 and a quiet requeue;
  // the event is recorded once, after the finalizer is really gone.
  await setFinalizer(d, tl, false);
  d.events.record(tl, 'Normal', 'TenantDeleted', `every service of tenant ${slug} was removed`);
}
