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
import { kubeRequest } from '@aiplane/lib';
import {
  AppsV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  type KubeConfig,
  type V1OwnerReference,
} from '@kubernetes/client-node';
import {
  type LocalEnvironment,
  type ManagedProcess,
  operatorEnv,
  startBundled,
  StopWaiting,
  waitFor,
} from '@aiplane/hack';
import { bundleImage } from '../hack/src/image/bundle.js';
import { logProblems, printLogProblems, type LogProblems } from './logs.js';
import { parsePrometheus, scrape, sumBy, total } from './prometheus.js';
import { percentile, latencySummary, writeResult } from './report.js';
import { memoryOf, rssMiB, sampleRss } from './sampling.js';

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

/** Sum of `aiplane_reconcile_total{controller="<controller>",…}` by result, from /metrics. */
async function reconcileTotals(port: number, controller: string): Promise<Record<string, number>> {
  return sumBy(await scrape(port), 'aiplane_reconcile_total', { controller }, 'result');
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

/**
 * The run's bound: every await of the scenario races it. `phase` and `progress` say, in the
 * error it ends the run with, what the run was doing.
 */
class Deadline {
  phase = 'starting the operator';
  progress = '';
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(
      () =>
        this.controller.abort(
          new Error(
            `mcp-servers benchmark aborted: not finished after ${ms / 60_000} min ` +
              `(while ${this.phase}${this.progress ? `; ${this.progress}` : ''})`,
          ),
        ),
      ms,
    );
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  bounded<T>(p: Promise<T>): Promise<T> {
    const signal = this.controller.signal;
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = () => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** The operator as deployed: the image's compiled bundle (node operator.mjs), its own process. */
async function startOperator(env: LocalEnvironment): Promise<ManagedProcess> {
  const image = join(env.dir, 'bench-mcp-image');
  await bundleImage(image);
  return startBundled({
    name: 'bench-mcp-operator',
    file: join(image, 'operator.mjs'),
    env: {
      ...process.env,
      ...operatorEnv(env.info()),
      AIPLANE_OPERATOR_HEALTH_PORT: '0',
      AIPLANE_OPERATOR_LEADER_ELECTION: 'false',
      AIPLANE_OPERATOR_MCP_RECHECK_SECONDS: '3600',
      AIPLANE_LOG_LEVEL: 'info',
    },
    logFile: join(env.controlPlane.logDir, 'bench-mcp-operator.log'),
  });
}

/** The operator's health port, once it has started and its informers have synced. */
async function operatorReady(
  operator: ManagedProcess,
  deadline: Deadline,
  alive: () => void,
): Promise<number> {
  let port = 0;
  await deadline.bounded(
    waitFor('the operator to start', () => {
      alive();
      const m = /"port":(\d+)[^\n]*"msg":"operator started"/.exec(
        readFileSync(operator.logFile, 'utf8'),
      );
      port = Number(m?.[1] ?? 0);
      return Promise.resolve(port > 0);
    }),
  );
  await deadline.bounded(
    waitFor('the operator to be ready (informers synced)', async () => {
      alive();
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
    }),
  );
  return port;
}

/** When each McpServer's create returned and when a LIST first showed its status written. */
interface Statuses {
  names: string[];
  createdAt: Map<string, number>;
  seenAt: Map<string, number>;
  /** How long each polling LIST took. */
  listMs: number[];
  start: number;
  allCreatedAt: number;
  allStatusesAt: number;
}

/**
 * Creates `count` managed McpServers, at most CONCURRENCY in flight, and polls a LIST every
 * POLL_MS from the first create on, until every status is written.
 */
async function createAndAwaitStatuses(
  objects: KubernetesObjectApi,
  namespace: string,
  count: number,
  deadline: Deadline,
  alive: () => void,
): Promise<Statuses> {
  const names = Array.from({ length: count }, (_, i) => `mcp-${String(i).padStart(3, '0')}`);
  const createdAt = new Map<string, number>();
  const seenAt = new Map<string, number>();
  const listMs: number[] = [];
  let failure: unknown;
  let allCreatedAt = 0;

  deadline.phase = `creating ${count} McpServers`;
  const start = performance.now();

  // Creates, at most CONCURRENCY in flight; the first failure stops the others.
  const creating = (async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < names.length && failure === undefined && !deadline.aborted) {
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
    deadline.phase = `waiting for ${count} statuses`;
  })();

  // One LIST every POLL_MS, from the first create on, until every status is written.
  const polling = (async () => {
    let lastLog = start;
    while (seenAt.size < count) {
      if (failure !== undefined || deadline.aborted) return;
      alive();
      const t = performance.now();
      const list = await objects.list<McpServer>(API_VERSION, MCP_SERVER_KIND, namespace);
      const now = performance.now();
      listMs.push(now - t);
      for (const s of list.items) {
        const name = s.metadata.name ?? '';
        if (!seenAt.has(name) && statusWritten(s)) seenAt.set(name, now);
      }
      deadline.progress = `${createdAt.size} created, ${seenAt.size} statuses`;
      if (now - lastLog >= 10_000) {
        lastLog = now;
        console.log(`  ${Math.round((now - start) / 1000)} s: ${deadline.progress}`);
      }
      await sleep(Math.max(0, POLL_MS - (performance.now() - t)));
    }
  })();

  await deadline.bounded(
    Promise.all([
      creating,
      polling.catch((err: unknown) => {
        failure ??= err;
        throw err;
      }),
    ]),
  );
  const allStatusesAt = Math.max(...seenAt.values());
  return { names, createdAt, seenAt, listMs, start, allCreatedAt, allStatusesAt };
}

/** The Deployments and Services in the namespace, each of `count` owned by an McpServer. */
async function checkChildren(
  kc: KubeConfig,
  objects: KubernetesObjectApi,
  namespace: string,
  count: number,
  deadline: Deadline,
) {
  const [deployments, services, servers] = await deadline.bounded(
    Promise.all([
      kc.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace }),
      kc.makeApiClient(CoreV1Api).listNamespacedService({ namespace }),
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
  return {
    children: { deployments: deployments.items.length, services: services.items.length },
    readyConditions,
  };
}

/** The operator's reconcile counts when every status was written, and once it went quiet. */
interface Settling {
  atDone: Record<string, number>;
  atEnd: Record<string, number>;
  /** When the last reconcile before QUIET_MS of silence ran; undefined: it never went quiet. */
  quietAt: number | undefined;
}

/** Does the operator go quiet once the work is done, and when? */
async function watchSettle(
  port: number,
  allStatusesAt: number,
  deadline: Deadline,
  alive: () => void,
): Promise<Settling> {
  const atDone = await deadline.bounded(reconcileTotals(port, 'mcpserver'));
  let atEnd = atDone;
  let lastReconcileAt = performance.now();
  let quietAt: number | undefined;
  while (performance.now() - allStatusesAt < SETTLE_MAX_MS) {
    await deadline.bounded(sleep(1_000));
    alive();
    const now = performance.now();
    const totals = await deadline.bounded(reconcileTotals(port, 'mcpserver'));
    if (total(totals) !== total(atEnd)) lastReconcileAt = now;
    atEnd = totals;
    if (now - lastReconcileAt >= QUIET_MS) {
      quietAt = lastReconcileAt;
      break;
    }
  }
  return { atDone, atEnd, quietAt };
}

/** How long the operator is watched once quiet, for the issue's "idle minute". */
const IDLE_MS = 60_000;

/**
 * The writes the apiserver served that only the operator makes here: any write to an McpServer
 * (the benchmark writes none after creating them), and the patches of Deployments and Services
 * (server-side apply; the controller-manager writes their status with PUT).
 */
async function operatorWrites(kc: KubeConfig): Promise<number> {
  const text = await kubeRequest<string>(kc, { method: 'GET', path: '/metrics' });
  let writes = 0;
  for (const s of parsePrometheus(text)) {
    if (s.name !== 'apiserver_request_total') continue;
    const { verb = '', resource = '', subresource = '' } = s.labels;
    if (!['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY'].includes(verb)) continue;
    if (
      resource === 'mcpservers' ||
      (['deployments', 'services'].includes(resource) && verb !== 'PUT' && subresource === '')
    ) {
      writes += s.value;
    }
  }
  return writes;
}

/** Reconciles and writes during IDLE_MS once the operator went quiet (goal: none of either). */
async function idleMinute(
  kc: KubeConfig,
  port: number,
  deadline: Deadline,
  alive: () => void,
): Promise<{ ms: number; reconciles: number; writes: number }> {
  const [r0, w0] = await deadline.bounded(
    Promise.all([reconcileTotals(port, 'mcpserver'), operatorWrites(kc)]),
  );
  await deadline.bounded(sleep(IDLE_MS));
  alive();
  const [r1, w1] = await deadline.bounded(
    Promise.all([reconcileTotals(port, 'mcpserver'), operatorWrites(kc)]),
  );
  return { ms: IDLE_MS, reconciles: total(r1) - total(r0), writes: w1 - w0 };
}

/** The watch events the McpServer controller received, by `resource event outcome`. */
async function watchEvents(port: number): Promise<Record<string, number>> {
  const events: Record<string, number> = {};
  for (const s of await scrape(port)) {
    if (s.name !== 'aiplane_watch_events_total' || s.labels.controller !== 'mcpserver') continue;
    const { resource = '', event = '', outcome = '' } = s.labels;
    events[`${resource} ${event} ${outcome}`] = s.value;
  }
  return events;
}

/** The benchmark's result, from what the run measured. */
function report(
  count: number,
  s: Statuses,
  checked: Awaited<ReturnType<typeof checkChildren>>,
  settling: Settling,
  idle: Awaited<ReturnType<typeof idleMinute>>,
  events: Record<string, number>,
  memory: Record<string, number | null>,
): Record<string, unknown> {
  const latencies = s.names.map((n) =>
    Math.max(0, (s.seenAt.get(n) ?? NaN) - (s.createdAt.get(n) ?? NaN)),
  );
  const sortedList = [...s.listMs].sort((a, b) => a - b);
  return {
    objects: count,
    createConcurrency: CONCURRENCY,
    createAllMs: Math.round(s.allCreatedAt - s.start),
    allStatusesMs: Math.round(s.allStatusesAt - s.start),
    statusLatencyMs: latencySummary(latencies),
    pollListMs: {
      polls: sortedList.length,
      p50: Math.round(percentile(sortedList, 50)),
      max: Math.round(sortedList.at(-1) ?? 0),
    },
    ...checked,
    reconciles: {
      atAllStatuses: settling.atDone,
      perObjectAtAllStatuses: Math.round((total(settling.atDone) / count) * 100) / 100,
      atEnd: settling.atEnd,
      perObjectAtEnd: Math.round((total(settling.atEnd) / count) * 100) / 100,
      // From the first create to the last reconcile before QUIET_MS of silence; null: still
      // reconciling SETTLE_MAX_MS after the last status.
      quietAfterMs: settling.quietAt === undefined ? null : Math.round(settling.quietAt - s.start),
    },
    // Once quiet: what the operator did in the next minute (apiserver_request_total).
    idle,
    // What woke the controller (aiplane_watch_events_total): queued, echo of its own write,
    // or a child update that changed nothing it reads.
    watchEvents: events,
    operatorMemoryMiB: memory,
    note:
      `status latency = create returned → status first seen by a LIST polled every ${POLL_MS} ms ` +
      '(a poll counts when its response arrived, so latencies include up to one poll interval ' +
      `plus the LIST time); RSS sampled every ${RSS_SAMPLE_MS} ms from /proc VmRSS; no kubelet, ` +
      'so statuses end Ready=False; the operator runs from the image’s compiled bundle (node operator.mjs)',
  };
}

export async function mcpServers(env: LocalEnvironment, count = COUNT): Promise<void> {
  const kc = env.controlPlane.kubeConfig();
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const namespace = `bench-mcp-${randomBytes(4).toString('hex')}`;

  // The whole run is bounded: every await below races this deadline.
  const deadline = new Deadline(TIMEOUT_MS);
  const operator = await startOperator(env);
  const pid = operator.child.pid as number;
  const alive = () => {
    if (operator.child.exitCode !== null || operator.child.signalCode !== null) {
      throw new StopWaiting(`the operator exited; see ${operator.logFile}`);
    }
  };

  // VmRSS every 250 ms for the whole run.
  const rss = sampleRss(pid, RSS_SAMPLE_MS);

  let namespaceCreated = false;
  let result: Record<string, unknown>;
  let problems: LogProblems | undefined;
  try {
    const port = await operatorReady(operator, deadline, alive);
    const idleRss = rssMiB(pid);

    deadline.phase = 'creating the namespace';
    await deadline.bounded(
      objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
    );
    namespaceCreated = true;

    const statuses = await createAndAwaitStatuses(objects, namespace, count, deadline, alive);
    const atAllStatusesRss = rssMiB(pid);

    deadline.phase = 'counting Deployments and Services';
    const checked = await checkChildren(kc, objects, namespace, count, deadline);

    deadline.phase = 'watching the operator settle';
    const settling = await watchSettle(port, statuses.allStatusesAt, deadline, alive);
    deadline.phase = 'an idle minute';
    const idle = await idleMinute(kc, port, deadline, alive);
    const events = await deadline.bounded(watchEvents(port));

    const end = memoryOf(pid);
    result = report(count, statuses, checked, settling, idle, events, {
      idleRss: idleRss ?? null,
      peakRss: rss.peak(),
      rssAtAllStatuses: atAllStatusesRss ?? null,
      rssAtEnd: rss.last() ?? null, // once quiet (or after SETTLE_MAX_MS)
      vmHwm: end.peakMiB,
    });
  } finally {
    deadline.clear();
    rss.stop();
    await operator.stop();
    // Not waited for: the controller-manager removes the namespace's objects in the background;
    if (namespaceCreated) {
      await objects
        .delete({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
        .catch((err: unknown) => console.error(`deleting namespace ${namespace} failed:`, err));
    }
    // Printed on failure too: the operator's complaints usually say why.
    problems = logProblems(operator.logFile, (key) =>
      key.replace(/bench-mcp-[0-9a-f]+/g, '<namespace>').replace(/\bmcp-\d+/g, 'mcp-N'),
    );
    printLogProblems('operator', operator.logFile, problems);
  }
  writeResult(count === COUNT ? 'mcp-servers' : `mcp-servers-${count}`, {
    ...result,
    operatorLog: { warnings: problems.warn, errors: problems.error },
  });
}
