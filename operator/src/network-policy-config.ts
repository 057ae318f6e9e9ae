import { isIPv4, isIPv6 } from 'node:net';

/** Pods picked by labels: a namespace selector and a pod selector (both `matchLabels`). */
export interface PeerLabels {
  readonly namespaceLabels: Readonly<Record<string, string>>;
  readonly podLabels: Readonly<Record<string, string>>;
}

/**
 * Tenant network isolation (docs/adr/0014): the NetworkPolicies the operator writes in every
 * tenant namespace.
 */
export interface NetworkIsolationConfig {
  readonly enabled: boolean;
  /** The only pods that may open connections to a tenant's pods (the platform's own). */
  readonly ingressFrom: PeerLabels;
  /** The cluster DNS pods tenant pods may query (UDP and TCP 53). */
  readonly dns: PeerLabels;
  /** Destinations refused to tenant pods: the cluster's pod and service ranges, private networks. */
  readonly clusterCidrs: readonly string[];
  /** Destinations tenant pods may reach although a denied range contains them (every port). */
  readonly extraEgressCidrs: readonly string[];
}

/** Private networks and the usual pod/service ranges (kind, kubeadm, EKS, GKE, AKS) of IPv4 and IPv6. */
export const DEFAULT_CLUSTER_CIDRS: readonly string[] = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  'fc00::/7',
];

const QUALIFIED = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function labelKeyOk(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))) return false;
  return name.length <= 63 && QUALIFIED.test(name);
}

/**
 * `k=v[,k=v…]` as a label map, or a problem naming the variable. Values may be empty
 * (`k=`), as in Kubernetes.
 */
export function parseLabels(
  name: string,
  raw: string,
): { labels: Record<string, string> } | { problem: string } {
  const labels: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    const value = eq < 0 ? undefined : pair.slice(eq + 1).trim();
    if (value === undefined || !labelKeyOk(key) || (value !== '' && !QUALIFIED.test(value))) {
      return { problem: `${name} must be labels key=value[,key=value…], got "${raw}"` };
    }
    labels[key] = value;
  }
  return { labels };
}

function ipv4Value(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Value(ip: string): bigint {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const v4 = ipv4Value(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/**
 * A CIDR as NetworkPolicy's `ipBlock` takes it: an IPv4 or IPv6 network address (host bits
 * zero, IPv6 in lower case) and a prefix length; `/0` is refused (the policies add the
 * whole-internet blocks themselves). Answers undefined when it is not one.
 */
export function checkCidr(cidr: string): string | undefined {
  const [address = '', prefixText, extra] = cidr.split('/');
  if (prefixText === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefixText)) {
    return 'is not address/prefix';
  }
  const v4 = isIPv4(address);
  if (!v4 && !isIPv6(address)) return 'is not an IPv4 or IPv6 address';
  if (!v4 && address !== address.toLowerCase()) return 'must be written in lower case';
  const bits = v4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix < 1 || prefix > bits) return `needs a prefix length from 1 to ${bits}`;
  const value = v4 ? ipv4Value(address) : ipv6Value(address);
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  if ((value & hostMask) !== 0n) return 'has host bits set (use the network address)';
  return undefined;
}

function parseCidrs(name: string, raw: string, problems: string[]): string[] {
  if (raw.trim() === 'none') return [];
  const cidrs = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const c of cidrs) {
    const why = checkCidr(c);
    if (why) problems.push(`${name}: "${c}" ${why}`);
  }
  return cidrs;
}

function labelsOf(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: string,
  problems: string[],
): Record<string, string> {
  const raw = env[name] === undefined || env[name] === '' ? fallback : (env[name] ?? '');
  const parsed = parseLabels(name, raw);
  if ('problem' in parsed) {
    problems.push(parsed.problem);
    return {};
  }
  return parsed.labels;
}

/**
 * Reads AIPLANE_OPERATOR_NETWORK_POLICY_* (docs/configuration.md); problems are appended to
 * `problems`. `ownNamespace` is where the platform runs (the default ingress namespace).
 */
export function readNetworkIsolationConfig(
  env: NodeJS.ProcessEnv,
  ownNamespace: string,
  problems: string[],
): NetworkIsolationConfig {
  const p = 'AIPLANE_OPERATOR_NETWORK_POLICY';
  const rawEnabled = env[`${p}_ENABLED`] ?? '';
  if (rawEnabled !== '' && rawEnabled !== 'true' && rawEnabled !== 'false') {
    problems.push(`${p}_ENABLED must be true or false, got "${rawEnabled}"`);
  }
  const cidrs = env[`${p}_CLUSTER_CIDRS`];
  return Object.freeze({
    enabled: rawEnabled !== 'false',
    ingressFrom: Object.freeze({
      namespaceLabels: labelsOf(
        env,
        `${p}_INGRESS_NAMESPACE_LABELS`,
        `kubernetes.io/metadata.name=${ownNamespace}`,
        problems,
      ),
      podLabels: labelsOf(
        env,
        `${p}_INGRESS_POD_LABELS`,
        'app.kubernetes.io/name=aiplane',
        problems,
      ),
    }),
    dns: Object.freeze({
      namespaceLabels: labelsOf(
        env,
        `${p}_DNS_NAMESPACE_LABELS`,
        'kubernetes.io/metadata.name=kube-system',
        problems,
      ),
      podLabels: labelsOf(env, `${p}_DNS_POD_LABELS`, 'k8s-app=kube-dns', problems),
    }),
    clusterCidrs: Object.freeze(
      cidrs === undefined || cidrs === ''
        ? [...DEFAULT_CLUSTER_CIDRS]
        : parseCidrs(`${p}_CLUSTER_CIDRS`, cidrs, problems),
    ),
    extraEgressCidrs: Object.freeze(
      parseCidrs(`${p}_EXTRA_EGRESS_CIDRS`, env[`${p}_EXTRA_EGRESS_CIDRS`] ?? '', problems),
    ),
  });
}
