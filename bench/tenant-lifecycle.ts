// Tenant provisioning latency: time from POST /v1/admin/tenants to phase Ready (polled every
// 50 ms), for 20 tenants one after another and 20 created at once, with and without a
// dedicated database, then 200 created at once (issue 21's scale; polled every 500 ms). Real
// API (in process), the operator as deployed (the image's compiled bundle), Keycloak,
// PostgreSQL.
import { join } from 'node:path';
import { loadApiConfig, startApi } from '@aiplane/api';
import {
  apiEnv,
  createDatabase,
  type LocalEnvironment,
  operatorEnv,
  passwordGrant,
  startBundled,
  waitFor,
} from '@aiplane/hack';
import { bundleImage } from '../hack/src/image/bundle.js';
import { benchLogger } from './logs.js';
import { latencySummary, writeResult } from './report.js';
import { memoryOf } from './sampling.js';

export async function tenantLifecycle(env: LocalEnvironment): Promise<void> {
  const info = env.info();
  const kc = info.keycloak;
  const logDir = env.controlPlane.logDir;
  const api = await startApi(
    loadApiConfig({
      ...apiEnv(info, await createDatabase(info, 'aiplane_bench', { fresh: true })),
      AIPLANE_API_PORT: '0',
    }),
    benchLogger(logDir, 'api', 'info'),
    { kc: env.controlPlane.kubeConfig() },
  );
  const image = join(env.dir, 'bench-tenant-image');
  await bundleImage(image);
  const operator = startBundled({
    name: 'operator',
    file: join(image, 'operator.mjs'),
    env: {
      ...process.env,
      ...operatorEnv(info),
      AIPLANE_OPERATOR_HEALTH_PORT: '0',
      AIPLANE_OPERATOR_LEADER_ELECTION: 'false',
    },
    logFile: join(logDir, 'bench-operator.log'),
  });
  const base = `http://127.0.0.1:${api.port}/v1/admin/tenants`;
  let token = (await passwordGrant(kc, kc.users.admin)).access_token;
  const refresh = setInterval(() => {
    void passwordGrant(kc, kc.users.admin).then((t) => (token = t.access_token));
  }, 60_000);
  const headers = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

  async function provision(slug: string, dedicated: boolean, pollMs = 50): Promise<number> {
    const start = performance.now();
    const res = await fetch(base, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ slug, identity: { enabled: true }, database: { dedicated } }),
    });
    if (res.status !== 202) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    await waitFor(
      `${slug} Ready`,
      async () => {
        const r = await fetch(`${base}/${id}`, { headers: headers() });
        return ((await r.json()) as { phase: string }).phase === 'Ready';
      },
      { timeoutMs: 300_000, intervalMs: pollMs },
    );
    return performance.now() - start;
  }

  const summary = (ms: number[]) => ({ n: ms.length, ...latencySummary(ms) });

  try {
    const run = Date.now().toString(36);
    const sequential: number[] = [];
    for (let i = 0; i < 20; i++) sequential.push(await provision(`seq-${run}-${i}`, false));
    const t0 = performance.now();
    const concurrent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => provision(`par-${run}-${i}`, false)),
    );
    const concurrentWall = performance.now() - t0;
    const t1 = performance.now();
    const concurrentDb = await Promise.all(
      Array.from({ length: 20 }, (_, i) => provision(`pdb-${run}-${i}`, true)),
    );
    const concurrentDbWall = performance.now() - t1;
    const t2 = performance.now();
    const at200 = await Promise.all(
      Array.from({ length: 200 }, (_, i) => provision(`c2h-${run}-${i}`, false, 500)),
    );
    const at200Wall = performance.now() - t2;
    writeResult('tenant-lifecycle', {
      postToReadyMs: {
        sequential: summary(sequential),
        concurrent20: { ...summary(concurrent), wallMs: Math.round(concurrentWall) },
        concurrent20WithDatabase: {
          ...summary(concurrentDb),
          wallMs: Math.round(concurrentDbWall),
        },
        concurrent200: { ...summary(at200), wallMs: Math.round(at200Wall) },
      },
      operatorMemoryMiB: memoryOf(operator.child.pid as number),
      note: 'readiness observed by polling the API every 50 ms (500 ms for the 200); the operator runs from the image’s compiled bundle (node operator.mjs)',
    });
  } finally {
    clearInterval(refresh);
    await operator.stop();
    await api.close();
  }
}
