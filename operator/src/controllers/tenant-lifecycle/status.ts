import {
  GROUP,
  TENANT_LIFECYCLE_PLURAL,
  VERSION,
  type TenantLifecycle,
  type TenantLifecycleStatus,
} from '@aiplane/crds';
import { formatKubeTime } from '@aiplane/lib';
import { type StatusKind, statusEqual, writeStatus } from '../../runtime/index.js';
import type { TenantControllerDeps } from './deps.js';

/**
 * How a TenantLifecycle's status is written: cluster-scoped, and without a precondition (a
 * spec change meanwhile does not hold back what this pass observed).
 */
const TENANT_STATUS: StatusKind = {
  group: GROUP,
  version: VERSION,
  plural: TENANT_LIFECYCLE_PLURAL,
  namespaced: false,
  precondition: false,
};

/**
 * The one place a TenantLifecycle's status is written: only when it changed, stamping
 * `lastUpdateTime` then.
 */
export async function writeTenantStatus(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
  next: TenantLifecycleStatus,
): Promise<boolean> {
  const current = tl.status ?? {};
  const withoutTime = (s: TenantLifecycleStatus) => ({ ...s, lastUpdateTime: undefined });
  if (statusEqual(withoutTime(next), withoutTime(current))) return false;
  const stamped = { ...next, lastUpdateTime: formatKubeTime(d.now()) };
  const result = await writeStatus(d.kc, TENANT_STATUS, tl, stamped, d.statusMemory);
  return result.outcome === 'patched';
}
