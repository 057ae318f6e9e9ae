import assert from 'node:assert/strict';
import type { NetworkIsolationConfig } from '../../network-policy-config.js';
import {
  EGRESS_POLICY,
  INGRESS_POLICY,
  type NetworkPolicy,
  type NetworkPolicyPeer,
  tenantNetworkPolicies,
} from './network-policies.js';

const BASE: NetworkIsolationConfig = {
  enabled: true,
  ingressFrom: {
    namespaceLabels: { 'kubernetes.io/metadata.name': 'aiplane-system' },
    podLabels: { 'app.kubernetes.io/name': 'aiplane', 'app.kubernetes.io/instance': 'aiplane' },
  },
  dns: {
    namespaceLabels: { 'kubernetes.io/metadata.name': 'kube-system' },
    podLabels: { 'k8s-app': 'kube-dns' },
  },
  clusterCidrs: ['10.0.0.0/8', 'fc00::/7'],
  extraEgressCidrs: [],
};
const TARGET = {
  namespace: 'tenant-acme',
  labels: { 'app.kubernetes.io/managed-by': 'aiplane-operator', 'aiplane.io/tenant': 'acme' },
  owner: {
    apiVersion: 'aiplane.io/v1alpha1',
    kind: 'TenantLifecycle',
    name: 'acme',
    uid: 'u-1',
    controller: true,
  },
};

function policies(config: Partial<NetworkIsolationConfig> = {}) {
  const [ingress, egress, ...rest] = tenantNetworkPolicies({ ...BASE, ...config }, TARGET);
  assert.equal(rest.length, 0);
  return { ingress: ingress as NetworkPolicy, egress: egress as NetworkPolicy };
}

/** The `except` list of the internet block of one family. */
function except(p: NetworkPolicy, cidr: '0.0.0.0/0' | '::/0'): string[] {
  const peers = (p.spec.egress ?? []).flatMap((r) => r.to);
  const block = peers.find((x: NetworkPolicyPeer) => x.ipBlock?.cidr === cidr);
  assert.ok(block, `no ${cidr} block`);
  return block.ipBlock?.except ?? [];
}

describe('tenantNetworkPolicies', () => {
  it('names, labels and owns both policies by the tenant, in its namespace, selecting every pod', () => {
    const { ingress, egress } = policies();
    assert.deepEqual(
      [ingress, egress].map((p) => p.metadata.name),
      [INGRESS_POLICY, EGRESS_POLICY],
    );
    for (const p of [ingress, egress]) {
      assert.equal(p.metadata.namespace, 'tenant-acme');
      assert.deepEqual(p.metadata.labels, TARGET.labels);
      assert.deepEqual(p.metadata.ownerReferences, [TARGET.owner]);
      assert.deepEqual(p.spec.podSelector, {});
    }
  });

  it('admits ingress only from the configured namespace and pod labels (both must match)', () => {
    const { ingress } = policies();
    assert.deepEqual(ingress.spec.policyTypes, ['Ingress']);
    assert.deepEqual(ingress.spec.ingress, [
      {
        from: [
          {
            namespaceSelector: { matchLabels: BASE.ingressFrom.namespaceLabels },
            podSelector: { matchLabels: BASE.ingressFrom.podLabels },
          },
        ],
      },
    ]);
  });

  it('allows DNS to the cluster DNS pods on UDP and TCP 53 only', () => {
    const { egress } = policies();
    assert.deepEqual(egress.spec.policyTypes, ['Egress']);
    assert.deepEqual(egress.spec.egress?.[0], {
      to: [
        {
          namespaceSelector: { matchLabels: BASE.dns.namespaceLabels },
          podSelector: { matchLabels: BASE.dns.podLabels },
        },
      ],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    });
  });

  const cases: {
    name: string;
    config: Partial<NetworkIsolationConfig>;
    v4: string[];
    v6: string[];
    extra: string[];
  }[] = [
    {
      name: 'the configured cluster ranges, link-local and every metadata address denied',
      config: {},
      v4: [
        '10.0.0.0/8',
        '169.254.0.0/16',
        '169.254.169.254/32',
        '100.100.100.200/32',
        '168.63.129.16/32',
      ],
      v6: ['fc00::/7', 'fe80::/10', 'fd00:ec2::254/128'],
      extra: [],
    },
    {
      name: 'link-local and metadata denied even when no cluster range is configured',
      config: { clusterCidrs: [] },
      v4: ['169.254.0.0/16', '169.254.169.254/32', '100.100.100.200/32', '168.63.129.16/32'],
      v6: ['fe80::/10', 'fd00:ec2::254/128'],
      extra: [],
    },
    {
      name: 'a range named twice denied once',
      config: { clusterCidrs: ['169.254.0.0/16', '192.168.0.0/16'] },
      v4: [
        '169.254.0.0/16',
        '192.168.0.0/16',
        '169.254.169.254/32',
        '100.100.100.200/32',
        '168.63.129.16/32',
      ],
      v6: ['fe80::/10', 'fd00:ec2::254/128'],
      extra: [],
    },
    {
      name: 'extra allowed CIDRs as their own rule (every port)',
      config: { extraEgressCidrs: ['10.1.2.3/32', '2001:db8::/64'] },
      v4: [
        '10.0.0.0/8',
        '169.254.0.0/16',
        '169.254.169.254/32',
        '100.100.100.200/32',
        '168.63.129.16/32',
      ],
      v6: ['fc00::/7', 'fe80::/10', 'fd00:ec2::254/128'],
      extra: ['10.1.2.3/32', '2001:db8::/64'],
    },
  ];
  for (const c of cases) {
    it(`builds the egress with ${c.name}`, () => {
      const { egress } = policies(c.config);
      assert.deepEqual(except(egress, '0.0.0.0/0').sort(), [...c.v4].sort());
      assert.deepEqual(except(egress, '::/0').sort(), [...c.v6].sort());
      const rules = egress.spec.egress ?? [];
      assert.equal(rules.length, c.extra.length > 0 ? 3 : 2);
      assert.deepEqual(rules[1]?.ports, undefined, 'the internet on every port');
      if (c.extra.length > 0) {
        assert.deepEqual(rules[2], { to: c.extra.map((cidr) => ({ ipBlock: { cidr } })) });
      }
    });
  }
});
