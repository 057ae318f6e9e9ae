// Operator runtime throughput: N TenantLifecycles created at once, reconciled by the
// placeholder controller in its own operator process (leader election on); time until every
// object has a written status, and the operator's memory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION, TENANT_LIFECYCLE_KIND, type TenantLifecycle } from '@aiplane/crds';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { type LocalEnvironment, startFromSource, waitFor } from '@aiplane/hack';
import { latencySummary, writeResult } from './report.js';
import { memoryOf } from './sampling.js';

export async function runtimeReconcile(env: LocalEnvironment, count = 300): Promise<void> {
  const label = `bench-${Date.now()}`;
  const proc = startFromSource({
    name: 'bench-operator',
    entry: 'test/integration/fixtures/placeholder-operator.ts',
    env: {
      ...process.env,
      KUBECONFIG: env.controlPlane.kubeconfigPath,
      POD_NAME: 'bench-operator',
      AIPLANE_OPERATOR_HEALTH_PORT: '0',
      AIPLANE_OPERATOR_LEASE_NAME: label,
      PLACEHOLDER_SELECTOR: `aiplane.io/test=${label}`,
    },
    logFile: join(env.controlPlane.logDir, 'bench-operator.log'),
  });
  try {
    await waitFor('the operator to start', () =>
      Promise.resolve(/\{"port":\d+\}/.test(readFileSync(proc.logFile, 'utf8'))),
    );
    const idle = memoryOf(proc.child.pid as number);
    const api = KubernetesObjectApi.makeApiClient(env.controlPlane.kubeConfig());
    const created = new Map<string, number>();
    const start = Date.now();
    // Created "at once": every request in flight together, as a bulk import would.
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const name = `${label}-${i}`;
        await api.create({
          apiVersion: API_VERSION,
          kind: TENANT_LIFECYCLE_KIND,
          metadata: { name, labels: { 'aiplane.io/test': label } },
          spec: { slug: name, identity: { enabled: true } },
        });
        created.set(name, Date.now());
      }),
    );
    const createdAll = Date.now();
    console.log(`created ${count} objects in ${createdAll - start} ms`);
    const done = new Map<string, number>();
    await waitFor(
      `${count} statuses`,
      async () => {
        const list = await api.list<TenantLifecycle>(
          API_VERSION,
          TENANT_LIFECYCLE_KIND,
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          `aiplane.io/test=${label}`,
        );
        const now = Date.now();
        for (const t of list.items) {
          if (t.status?.observedGeneration === 1 && !done.has(t.metadata.name ?? ''))
            done.set(t.metadata.name ?? '', now);
        }
        return done.size === count;
      },
      { timeoutMs: 300_000, intervalMs: 250 },
    );
    const latencies = [...done].map(([name, at]) => at - (created.get(name) ?? start));
    const busy = memoryOf(proc.child.pid as number);
    writeResult('runtime-reconcile', {
      objects: count,
      createAllMs: createdAll - start,
      allReconciledMs: Math.max(...done.values()) - start,
      reconcileLatencyMs: latencySummary(latencies),
      operatorMemoryMiB: { idleRss: idle.rssMiB, peak: busy.peakMiB },
      note: 'latency measured by polling every 250 ms; placeholder reconcile = one status merge-patch',
    });
  } finally {
    await proc.stop();
  }
}
