// McpServer controller throughput: 500 managed McpServers created at once (20 creates in
// flight) in one namespace, reconciled by the real operator process (leader election off,
// periodic handshake re-checks pushed out to an hour). Measures the time until every object has
// a written status, checks the operator made a Deployment and a Service for each, and samples
// the operator's memory. There is no kubelet: no Deployment becomes available, so every status
// ends with Ready=False; what is measured is the apply-children-and-write-status path.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_VERSION, MCP_SERVER_KIND, type McpServer } from '@aiplane/crds';
import {
  AppsV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  type V1OwnerReference,
} from '@kubernetes/client-node';
import {
  type LocalEnvironment,
  startOperatorFromSource,
  StopWaiting,
  waitFor,
} from '@aiplane/hack';
import { memoryOf, percentile, writeResult } from './results.js';

const COUNT = 500;
const CONCURRENCY = 20;
const POLL_MS = 500;
const RSS_SAMPLE_MS = 250;
const TIMEOUT_MS = 10 * 60_000;
/**
 * After every status is written, the Deployment controller keeps updating the Deployments and
 * the operator keeps reconciling: it counts as quiet after QUIET_MS without a reconcile,
 * watched for at most SETTLE_MAX_MS (not reaching quiet is reported, not a failure).
 */
const QUIET_MS = 5_000;
const SETTLE_MAX_MS = 180_000;
/** VmRSS of a process in MiB ({@link memoryOf}), or undefined once it has gone. */
function rssMiB(pid: number): number | undefined {
  try {
    const { rssMiB } = memoryOf(pid);
    return Number.isFinite(rssMiB) ? rssMiB : undefined;
  } catch {
    return undefined; // no /proc entry any more
  }
}

/** Sum of `aiplane_reconcile_total{controller="<controller>",…}` by result, from /metrics. */
async function reconcileTotals(port: number, controller: string): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const totals: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('aiplane_reconcile_total{')) continue;
    if (!line.includes(`controller="${controller}"`)) continue;
    const result = /result="([^"]+)"/.exec(line)?.[1] ?? 'unknown';
    totals[result] = (totals[result] ?? 0) + Number(line.split(' ').at(-1));
  }
  return totals;
}

const PINO_LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};

/** Warnings and errors in the operator's (pino, JSON lines) log, grouped by message. */
function logProblems(file: string): { warn: number; error: number; top: string[] } {
  let warn = 0;
  let error = 0;
  const byMessage = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let entry: { level?: number | string; msg?: string; err?: { message?: string } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      // Not JSON (e.g. a stack trace printed by node): count it as an error line.
      error++;
      const key = `[raw] ${line.slice(0, 160)}`;
      byMessage.set(key, (byMessage.get(key) ?? 0) + 1);
      continue;
    }
    const level =
      typeof entry.level === 'string' ? (PINO_LEVELS[entry.level] ?? 0) : (entry.level ?? 0);
    if (level < 40) continue;
    if (level >= 50) error++;
    else warn++;
    const detail = entry.err?.message ? `: ${entry.err.message.slice(0, 200)}` : '';
    const key = `[${level >= 50 ? 'error' : 'warn'}] ${entry.msg ?? ''}${detail}`
      .replace(/bench-mcp-[0-9a-f]+/g, '<namespace>')
      .replace(/\bmcp-\d+/g, 'mcp-N');
    byMessage.set(key, (byMessage.get(key) ?? 0) + 1);
  }
  const top = [...byMessage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([msg, n]) => `${n}× ${msg}`);
  return { warn, error, top };
}

const isMcpOwner = (refs: V1OwnerReference[] | undefined) =>
  (refs ?? []).some((r) => r.kind === MCP_SERVER_KIND && r.controller === true);

/** The operator has written a status for the current generation, with a Ready condition. */
function statusWritten(s: McpServer): boolean {
  return (
    s.status?.observedGeneration !== undefined &&
    s.status.observedGeneration === s.metadata.generation &&
    (s.status.conditions ?? []).some((c) => c.type === 'Ready')
  );
}

export async function mcpServers(env: LocalEnvironment, count = COUNT): Promise<void> {
  const info = env.info();
  const kc = env.controlPlane.kubeConfig();
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = `bench-mcp-${randomBytes(4).toString('hex')}`;

  // The whole run is bounded: every await below races this deadline.
  let phase = 'starting the operator';
  let progress = '';
  const deadline = new AbortController();
  const timer = setTimeout(
    () =>
      deadline.abort(
        new Error(
          `mcp-servers benchmark aborted: not finished after ${TIMEOUT_MS / 60_000} min ` +
            `(while ${phase}${progress ? `; ${progress}` : ''})`,
        ),
      ),
    TIMEOUT_MS,
  );
  const bounded = <T>(p: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (deadline.signal.aborted) {
        reject(deadline.signal.reason as Error);
        return;
      }
      const onAbort = () => reject(deadline.signal.reason as Error);
      deadline.signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => deadline.signal.removeEventListener('abort', onAbort));
    });

  const operator = startOperatorFromSource(info, {
    name: 'bench-mcp-operator',
    logFile: join(env.controlPlane.logDir, 'bench-mcp-operator.log'),
    env: {
      AIPLANE_OPERATOR_HEALTH_PORT: '0',
      AIPLANE_OPERATOR_LEADER_ELECTION: 'false',
      AIPLANE_OPERATOR_MCP_RECHECK_SECONDS: '3600',
      AIPLANE_LOG_LEVEL: 'info',
    },
  });
  const pid = operator.child.pid as number;
  const alive = () => {
    if (operator.child.exitCode !== null || operator.child.signalCode !== null) {
      throw new StopWaiting(`the operator exited; see ${operator.logFile}`);
    }
  };

  // VmRSS every 250 ms for the whole run.
  let peakRss = 0;
  let lastRss: number | undefined;
  const sampler = setInterval(() => {
    const rss = rssMiB(pid);
    if (rss === undefined) return;
    lastRss = rss;
    peakRss = Math.max(peakRss, rss);
  }, RSS_SAMPLE_MS);

  let namespaceCreated = false;
  let result: Record<string, unknown>;
  let problems: ReturnType<typeof logProblems> | undefined;
  try {
    let port = 0;
    await bounded(
      waitFor('the operator to start', () => {
        alive();
        const m = /"port":(\d+)[^\n]*"msg":"operator started"/.exec(
          readFileSync(operator.logFile, 'utf8'),
        );
        port = Number(m?.[1] ?? 0);
        return Promise.resolve(port > 0);
      }),
    );
    await bounded(
      waitFor('the operator to be ready (informers synced)', async () => {
        alive();
        return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
      }),
    );
    const idleRss = rssMiB(pid);

    phase = 'creating the namespace';
    await bounded(
      objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
    );
    namespaceCreated = true;

    const names = Array.from({ length: count }, (_, i) => `mcp-${String(i).padStart(3, '0')}`);
    const createdAt = new Map<string, number>();
    const seenAt = new Map<string, number>();
    const listMs: number[] = [];
    let failure: unknown;
    let allCreatedAt = 0;

    phase = `creating ${count} McpServers`;
    const start = performance.now();

    // Creates, at most CONCURRENCY in flight; the first failure stops the others.
    const creating = (async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < names.length && failure === undefined && !deadline.signal.aborted) {
            const name = names[next++] as string;
            try {
              await objects.create({
                apiVersion: API_VERSION,
                kind: MCP_SERVER_KIND,
                metadata: { name, namespace },
                spec: {
                  runtime: 'managed',
                  displayName: `Bench MCP server ${name}`,
                  image: 'ghcr.io/acme/bench-mcp:1.0.0',
                  port: 8080,
                },
              });
            } catch (err) {
              failure ??= err;
              throw err;
            }
            createdAt.set(name, performance.now());
          }
        }),
      );
      allCreatedAt = performance.now();
      console.log(`created ${count} McpServers in ${Math.round(allCreatedAt - start)} ms`);
      phase = `waiting for ${count} statuses`;
    })();

    // One LIST every POLL_MS, from the first create on, until every status is written.
    const polling = (async () => {
      let lastLog = start;
      while (seenAt.size < count) {
        if (failure !== undefined || deadline.signal.aborted) return;
        alive();
        const t = performance.now();
        const list = await objects.list<McpServer>(API_VERSION, MCP_SERVER_KIND, namespace);
        const now = performance.now();
        listMs.push(now - t);
        for (const s of list.items) {
          const name = s.metadata.name ?? '';
          if (!seenAt.has(name) && statusWritten(s)) seenAt.set(name, now);
        }
        progress = `${createdAt.size} created, ${seenAt.size} statuses`;
        if (now - lastLog >= 10_000) {
          lastLog = now;
          console.log(`  ${Math.round((now - start) / 1000)} s: ${progress}`);
        }
        await sleep(Math.max(0, POLL_MS - (performance.now() - t)));
      }
    })();

    await bounded(
      Promise.all([
        creating,
        polling.catch((err: unknown) => {
          failure ??= err;
          throw err;
        }),
      ]),
    );
    const allStatusesAt = Math.max(...seenAt.values());
    const atAllStatusesRss = rssMiB(pid);

    phase = 'counting Deployments and Services';
    const [deployments, services, servers] = await bounded(
      Promise.all([
        apps.listNamespacedDeployment({ namespace }),
        core.listNamespacedService({ namespace }),
        objects.list<McpServer>(API_VERSION, MCP_SERVER_KIND, namespace),
      ]),
    );
    const ownedDeployments = deployments.items.filter((d) =>
      isMcpOwner(d.metadata?.ownerReferences),
    ).length;
    const ownedServices = services.items.filter((s) =>
      isMcpOwner(s.metadata?.ownerReferences),
    ).length;
    if (
      deployments.items.length !== count ||
      services.items.length !== count ||
      ownedDeployments !== count ||
      ownedServices !== count
    ) {
      throw new Error(
        `expected ${count} Deployments and ${count} Services owned by McpServers in ${namespace}; ` +
          `found ${deployments.items.length} Deployments (${ownedDeployments} owned) and ` +
          `${services.items.length} Services (${ownedServices} owned)`,
      );
    }
    // What the statuses say (no kubelet: expected Ready=False, DeploymentUnavailable).
    const readyConditions: Record<string, number> = {};
    for (const s of servers.items) {
      const c = (s.status?.conditions ?? []).find((x) => x.type === 'Ready');
      const key = `${c?.status ?? 'none'}/${c?.reason ?? 'none'}`;
      readyConditions[key] = (readyConditions[key] ?? 0) + 1;
    }

    // Does the operator go quiet once the work is done, and when?
    phase = 'watching the operator settle';
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    const reconcilesAtDone = await bounded(reconcileTotals(port, 'mcpserver'));
    let reconcilesAtEnd = reconcilesAtDone;
    let lastReconcileAt = performance.now();
    let quietAt: number | undefined;
    while (performance.now() - allStatusesAt < SETTLE_MAX_MS) {
      await bounded(sleep(1_000));
      alive();
      const now = performance.now();
      const totals = await bounded(reconcileTotals(port, 'mcpserver'));
      if (sum(totals) !== sum(reconcilesAtEnd)) lastReconcileAt = now;
      reconcilesAtEnd = totals;
      if (now - lastReconcileAt >= QUIET_MS) {
        quietAt = lastReconcileAt;
        break;
      }
    }

    const latencies = names
      .map((n) => Math.max(0, (seenAt.get(n) ?? NaN) - (createdAt.get(n) ?? NaN)))
      .sort((a, b) => a - b);
    const sortedList = [...listMs].sort((a, b) => a - b);
    const end = memoryOf(pid);
    result = {
      objects: count,
      createConcurrency: CONCURRENCY,
      createAllMs: Math.round(allCreatedAt - start),
      allStatusesMs: Math.round(allStatusesAt - start),
      statusLatencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p95: Math.round(percentile(latencies, 95)),
        max: Math.round(latencies.at(-1) ?? 0),
      },
      pollListMs: {
        polls: sortedList.length,
        p50: Math.round(percentile(sortedList, 50)),
        max: Math.round(sortedList.at(-1) ?? 0),
      },
      children: { deployments: deployments.items.length, services: services.items.length },
      readyConditions,
      reconciles: {
        atAllStatuses: reconcilesAtDone,
        perObjectAtAllStatuses: Math.round((sum(reconcilesAtDone) / count) * 100) / 100,
        atEnd: reconcilesAtEnd,
        perObjectAtEnd: Math.round((sum(reconcilesAtEnd) / count) * 100) / 100,
        // From the first create to the last reconcile before QUIET_MS of silence; null: still
        // reconciling SETTLE_MAX_MS after the last status.
        quietAfterMs: quietAt === undefined ? null : Math.round(quietAt - start),
      },
      operatorMemoryMiB: {
        idleRss: idleRss ?? null,
        peakRss,
        rssAtAllStatuses: atAllStatusesRss ?? null,
        rssAtEnd: lastRss ?? null, // once quiet (or after SETTLE_MAX_MS)
        vmHwm: end.peakMiB,
      },
      note:
        `status latency = create returned → status first seen by a LIST polled every ${POLL_MS} ms ` +
        '(a poll counts when its response arrived, so latencies include up to one poll interval ' +
        `plus the LIST time); RSS sampled every ${RSS_SAMPLE_MS} ms from /proc VmRSS; no kubelet, ` +
        'so statuses end Ready=False; operator run from TypeScript sources (tsx)',
    };
  } finally {
    clearTimeout(timer);
    clearInterval(sampler);
    await operator.stop();
    // Not waited for: the controller-manager removes the namespace's objects in the background;
    if (namespaceCreated) {
      await objects
        .delete({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
        .catch((err: unknown) => console.error(`deleting namespace ${namespace} failed:`, err));
    }
    // Printed on failure too: the operator's complaints usually say why.
    problems = logProblems(operator.logFile);
    if (problems.top.length > 0) {
      console.log(
        `operator log ${operator.logFile}: ${problems.warn} warnings, ${problems.error} errors`,
      );
      for (const p of problems.top) console.log(`  ${p}`);
    }
  }
  writeResult('mcp-servers', {
    ...result,
    operatorLog: { warnings: problems.warn, errors: problems.error },
  });
}
