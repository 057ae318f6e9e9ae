import {
  GROUP,
  TENANT_LIFECYCLE_PLURAL,
  VERSION,
  type TenantLifecycle,
  type TenantLifecycleStatus,
} from '@aiplane/crds';
import { patchStatus, statusEqual } from '../../runtime/index.js';
import type { TenantControllerDeps } from './deps.js';

/**
 * The one place a TenantLifecycle's status is written: only when it changed, stamping
 * `lastUpdateTime` then.
 */
export async function writeStatus(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
  next: TenantLifecycleStatus,
): Promise<boolean> {
  const current = tl.status ?? {};
  const withoutTime = (s: TenantLifecycleStatus) => ({ ...s, lastUpdateTime: undefined });
  if (statusEqual(withoutTime(next), withoutTime(current))) return false;
  const stamped = {
    ...next,
    lastUpdateTime: d
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z'),
  };
  const result = await patchStatus(
    d.kc,
    {
      group: GROUP,
      version: VERSION,
      plural: TENANT_LIFECYCLE_PLURAL,
      name: tl.metadata.name ?? '',
    },
    stamped,
    current,
  );
  return result.outcome === 'patched';
}
