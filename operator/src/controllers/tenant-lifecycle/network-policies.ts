import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { NetworkIsolationConfig, PeerLabels } from '../../network-policy-config.js';

/** Admits only the platform's pods (ingress). */
export const INGRESS_POLICY = 'aiplane-tenant-ingress';
/** DNS and the public internet, never the cluster, private networks or metadata (egress). */
export const EGRESS_POLICY = 'aiplane-tenant-egress';
export const POLICY_NAMES: readonly string[] = [INGRESS_POLICY, EGRESS_POLICY];

/**
 * Refused whatever the configuration says (an extra egress CIDR can still open a hole on
 * purpose): link-local, where cloud metadata lives, and every metadata address we know of,
 * some of which are routable (Azure's wire server) or inside ranges an admin may allow.
 */
export const ALWAYS_DENIED_CIDRS: readonly string[] = [
  '169.254.0.0/16',
  '169.254.169.254/32',
  '100.100.100.200/32',
  '168.63.129.16/32',
  'fe80::/10',
  'fd00:ec2::254/128',
];

/**
 * A NetworkPolicy as JSON on the wire (client-node's model names `from` `_from`; these objects
 * go to the apiserver and come from the watch as they are).
 */
export interface NetworkPolicyPeer {
  namespaceSelector?: { matchLabels: Record<string, string> };
  podSelector?: { matchLabels: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
export interface NetworkPolicyPort {
  protocol: 'TCP' | 'UDP';
  port: number;
}
export interface NetworkPolicy {
  apiVersion: 'networking.k8s.io/v1';
  kind: 'NetworkPolicy';
  metadata: V1ObjectMeta;
  spec: {
    podSelector: { matchLabels?: Record<string, string> };
    policyTypes: ('Ingress' | 'Egress')[];
    ingress?: { from: NetworkPolicyPeer[] }[];
    egress?: { to: NetworkPolicyPeer[]; ports?: NetworkPolicyPort[] }[];
  };
}

/** What a tenant namespace's policies are written for. */
export interface PolicyTarget {
  namespace: string;
  labels: Record<string, string>;
  owner: V1OwnerReference;
}

const peer = (p: PeerLabels): NetworkPolicyPeer => ({
  namespaceSelector: { matchLabels: { ...p.namespaceLabels } },
  podSelector: { matchLabels: { ...p.podLabels } },
});

const DNS_PORTS: NetworkPolicyPort[] = [
  { protocol: 'UDP', port: 53 },
  { protocol: 'TCP', port: 53 },
];

const isV6 = (cidr: string) => cidr.includes(':');

/**
 * The NetworkPolicies of one tenant namespace, both selecting every pod in it:
 *
 * - ingress: only from pods matching `ingressFrom` (the platform's API, gateway and operator);
 * - egress: DNS to the cluster DNS pods, the public internet (0.0.0.0/0 and ::/0 except the
 *   cluster's ranges, link-local and metadata addresses), and the extra CIDRs allowed.
 *
 * Pure; field by field what the apiserver stores back, so a stored policy compares equal.
 */
export function tenantNetworkPolicies(
  config: NetworkIsolationConfig,
  target: PolicyTarget,
): NetworkPolicy[] {
  const metadata = (name: string) => ({
    name,
    namespace: target.namespace,
    labels: { ...target.labels },
    ownerReferences: [{ ...target.owner }],
  });
  const denied = [...new Set([...config.clusterCidrs, ...ALWAYS_DENIED_CIDRS])];
  const internet: NetworkPolicyPeer[] = [
    { ipBlock: { cidr: '0.0.0.0/0', except: denied.filter((c) => !isV6(c)) } },
    { ipBlock: { cidr: '::/0', except: denied.filter(isV6) } },
  ];
  const extra = config.extraEgressCidrs.map((cidr) => ({ ipBlock: { cidr } }));
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: metadata(INGRESS_POLICY),
      spec: {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [{ from: [peer(config.ingressFrom)] }],
      },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: metadata(EGRESS_POLICY),
      spec: {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [
          { to: [peer(config.dns)], ports: DNS_PORTS },
          { to: internet },
          ...(extra.length > 0 ? [{ to: extra }] : []),
        ],
      },
    },
  ];
}
