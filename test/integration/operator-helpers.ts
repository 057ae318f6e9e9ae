import {
  API_VERSION,
  GROUP,
  TENANT_LIFECYCLE_KIND,
  TENANT_LIFECYCLE_PLURAL,
  VERSION,
  type TenantLifecycle,
} from '@aiplane/crds';
import { loadOperatorConfig, startOperator } from '@aiplane/operator';
import { kubeRequest } from '@aiplane/lib';
import type { ManagerHandle } from '@aiplane/operator/runtime';
import { waitFor } from '@aiplane/hack';
import { placeholderControllers } from './fixtures/placeholder-controller.js';
import { runLogger } from './api-helpers.js';
import { kubeConfig } from './harness.js';
import { objectApi, uniqueName } from './kube-helpers.js';

/** Starts the placeholder controller in this process, without leader election. */
export async function startPlaceholderOperator(
  label: string,
  name: string,
): Promise<ManagerHandle> {
  const config = loadOperatorConfig({
    AIPLANE_OPERATOR_LEADER_ELECTION: 'false',
    AIPLANE_OPERATOR_HEALTH_PORT: '0',
    AIPLANE_OPERATOR_SHUTDOWN_GRACE_MS: '5000',
  });
  return startOperator({
    kc: kubeConfig(),
    config,
    logger: runLogger(name),
    controllers: placeholderControllers({
      identity: name,
      labelSelector: `aiplane.io/test=${label}`,
    }),
    signals: [],
  });
}

/**
 * The placeholder operator of the enclosing `describe`, for the objects labelled with a label
 * of its own (`label`): started before its tests, stopped after them.
 */
export function placeholderOperatorSuite(
  labelPrefix: string,
  name: string,
): { label: string; handle: () => ManagerHandle } {
  const label = uniqueName(labelPrefix);
  let handle: ManagerHandle | undefined;
  before(async function () {
    handle = await startPlaceholderOperator(label, name);
  });
  after(async function () {
    await handle?.stop();
  });
  return { label, handle: () => handle as ManagerHandle };
}

export function labelledTenant(slug: string, label: string): TenantLifecycle {
  return {
    apiVersion: API_VERSION,
    kind: TENANT_LIFECYCLE_KIND,
    metadata: { name: slug, labels: { 'aiplane.io/test': label } },
    spec: { slug, identity: { enabled: true } },
  };
}

export async function readTenant(name: string): Promise<TenantLifecycle> {
  return objectApi(kubeConfig()).read<TenantLifecycle>({
    apiVersion: API_VERSION,
    kind: TENANT_LIFECYCLE_KIND,
    metadata: { name },
  });
}

/**
 * Changes a tenant's display name as a user would: a merge patch without a resourceVersion, so it
 * cannot race an operator's status write (a replace of a just-read object can, and answers 409).
 * Returns the generation the change produced.
 */
export async function renameTenant(name: string, displayName: string): Promise<number> {
  const updated = await kubeRequest<TenantLifecycle>(kubeConfig(), {
    method: 'PATCH',
    path: `/apis/${GROUP}/${VERSION}/${TENANT_LIFECYCLE_PLURAL}/${name}`,
    contentType: 'application/merge-patch+json',
    body: { spec: { displayName } },
  });
  return updated.metadata.generation ?? 0;
}

/** The Ready condition's message once status.observedGeneration reaches `generation`. */
export async function reconciledMessage(
  name: string,
  generation: number,
  timeoutMs = 60_000,
): Promise<string> {
  let message = '';
  await waitFor(
    `${name} reconciled at generation ${generation}`,
    async () => {
      const t = await readTenant(name);
      if ((t.status?.observedGeneration ?? 0) < generation) return false;
      message = t.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
      return true;
    },
    { timeoutMs, intervalMs: 100 },
  );
  return message;
}
