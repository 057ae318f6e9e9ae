import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION, TENANT_LIFECYCLE_KIND, type TenantLifecycle } from '@aiplane/crds';
import { loadOperatorConfig, startOperator } from '@aiplane/operator';
import { createLogger } from '@aiplane/lib';
import type { ManagerHandle } from '@aiplane/operator/runtime';
import { waitFor } from '@aiplane/hack';
import { placeholderControllers } from './fixtures/placeholder-controller.js';
import { environment, kubeConfig } from './harness.js';
import { objectApi } from './kube-helpers.js';

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
  const destination = createWriteStream(join(environment().controlPlane.logDir, `${name}.log`));
  return startOperator({
    kc: kubeConfig(),
    config,
    logger: createLogger({ level: 'debug', name, destination }),
    controllers: placeholderControllers({
      identity: name,
      labelSelector: `aiplane.io/test=${label}`,
    }),
    signals: [],
  });
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
