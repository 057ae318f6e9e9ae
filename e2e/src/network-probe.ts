import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { waitUntil } from './wait-until.js';

/**
 * A network probe for tenant isolation (docs/adr/0014): a pod that resolves each target's name
 * through the cluster DNS, opens a TCP connection to it, and prints one line
 * `PROBE [{"name","resolved","outcome"}…]`. `outcome` is `connected`, `timeout`, `unresolved`
 * or `error:<code>` (a refusal or an unreachable network).
 */
export interface ProbeTarget {
  name: string;
  host: string;
  port: number;
}

export interface ProbeResult {
  name: string;
  resolved: boolean;
  outcome: string;
}

/** CommonJS for `node -e`: targets and timeout from the environment, nothing from the disk. */
export const PROBE_SCRIPT = `
const net = require('node:net');
const dns = require('node:dns').promises;
const targets = JSON.parse(process.env.PROBE_TARGETS);
const timeoutMs = Number(process.env.PROBE_TIMEOUT_MS || '5000');
async function probe(t) {
  let address;
  try {
    address = (await dns.lookup(t.host)).address;
  } catch {
    return { name: t.name, resolved: false, outcome: 'unresolved' };
  }
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port: t.port });
    const done = (outcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ name: t.name, resolved: true, outcome });
    };
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    socket.on('connect', () => done('connected'));
    socket.on('error', (e) => done('error:' + (e.code || 'unknown')));
  });
}
Promise.all(targets.map(probe)).then((r) => console.log('PROBE ' + JSON.stringify(r)));
`;

/**
 * The probe pod: the image must have `node` (the suite uses its MCP server image); security
 * contexts pass the restricted Pod Security Standard that tenant namespaces enforce.
 */
export function probePod(opts: {
  name: string;
  namespace: string;
  image: string;
  targets: ProbeTarget[];
  timeoutMs: number;
}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: opts.name,
      namespace: opts.namespace,
      labels: { 'app.kubernetes.io/name': 'aiplane-e2e-network-probe' },
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'probe',
          image: opts.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['node', '-e', PROBE_SCRIPT],
          env: [
            { name: 'PROBE_TARGETS', value: JSON.stringify(opts.targets) },
            { name: 'PROBE_TIMEOUT_MS', value: String(opts.timeoutMs) },
          ],
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ['ALL'] },
          },
        },
      ],
    },
  };
}

/** The results in a probe's log, or undefined when it printed none (yet). */
export function parseProbeLog(log: string): ProbeResult[] | undefined {
  const line = log.split('\n').find((l) => l.startsWith('PROBE '));
  if (!line) return undefined;
  return JSON.parse(line.slice('PROBE '.length)) as ProbeResult[];
}

/**
 * What the probe shows against isolation, each as a sentence; empty when every target's name
 * resolved (so DNS is allowed and a failure is not a typo) and no connection was made.
 */
export function isolationBreaches(results: ProbeResult[], targets: ProbeTarget[]): string[] {
  const out: string[] = [];
  for (const t of targets) {
    const r = results.find((x) => x.name === t.name);
    if (!r) out.push(`no result for ${t.name}`);
    else if (!r.resolved) out.push(`${t.name} (${t.host}) did not resolve: DNS is not allowed`);
    else if (r.outcome === 'connected') out.push(`${t.name} (${t.host}:${t.port}) was reachable`);
  }
  return out;
}

/** Creates the probe pod, waits for it to finish, answers its results, and deletes it. */
export async function runProbePod(kc: KubeConfig, pod: V1Pod, timeoutMs: number) {
  const core = kc.makeApiClient(CoreV1Api);
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  await core.createNamespacedPod({ namespace, body: pod });
  try {
    const phase = await waitUntil(
      async () => (await core.readNamespacedPod({ name, namespace })).status?.phase ?? 'Unknown',
      {
        what: `probe pod ${namespace}/${name} to finish`,
        until: (p) => p === 'Succeeded' || p === 'Failed',
        timeoutMs,
        intervalMs: 2000,
      },
    );
    const log = await core.readNamespacedPodLog({ name, namespace });
    const results = parseProbeLog(log);
    if (phase !== 'Succeeded' || !results) {
      throw new Error(`probe pod ${phase}, log: ${log.slice(0, 2000)}`);
    }
    return results;
  } finally {
    await core.deleteNamespacedPod({ name, namespace }).catch(() => undefined);
  }
}
