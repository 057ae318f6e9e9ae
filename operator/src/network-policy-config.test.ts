import assert from 'node:assert/strict';
import { ConfigError } from '@aiplane/lib';
import { loadOperatorConfig } from './config.js';
import { checkCidr, DEFAULT_CLUSTER_CIDRS, parseLabels } from './network-policy-config.js';

const P = 'AIPLANE_OPERATOR_NETWORK_POLICY';
const isolation = (env: Record<string, string>) =>
  loadOperatorConfig({ POD_NAMESPACE: 'aiplane-system', ...env }).tenants.networkIsolation;

function problems(env: Record<string, string>): string {
  try {
    loadOperatorConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail('the configuration was accepted');
}

describe('network isolation configuration', () => {
  it('is on by default, admitting this namespace’s aiplane pods and querying kube-dns', () => {
    assert.deepEqual(isolation({}), {
      enabled: true,
      ingressFrom: {
        namespaceLabels: { 'kubernetes.io/metadata.name': 'aiplane-system' },
        podLabels: { 'app.kubernetes.io/name': 'aiplane' },
      },
      dns: {
        namespaceLabels: { 'kubernetes.io/metadata.name': 'kube-system' },
        podLabels: { 'k8s-app': 'kube-dns' },
      },
      clusterCidrs: DEFAULT_CLUSTER_CIDRS,
      extraEgressCidrs: [],
    });
  });

  it('reads every variable', () => {
    assert.deepEqual(
      isolation({
        [`${P}_ENABLED`]: 'false',
        [`${P}_INGRESS_NAMESPACE_LABELS`]: 'team=platform',
        [`${P}_INGRESS_POD_LABELS`]:
          'app.kubernetes.io/instance=r1, app.kubernetes.io/name=aiplane',
        [`${P}_DNS_NAMESPACE_LABELS`]: 'kubernetes.io/metadata.name=dns',
        [`${P}_DNS_POD_LABELS`]: 'k8s-app=coredns',
        [`${P}_CLUSTER_CIDRS`]: '10.244.0.0/16, 10.96.0.0/12,fd00:10:244::/56',
        [`${P}_EXTRA_EGRESS_CIDRS`]: '10.96.0.10/32',
      }),
      {
        enabled: false,
        ingressFrom: {
          namespaceLabels: { team: 'platform' },
          podLabels: { 'app.kubernetes.io/instance': 'r1', 'app.kubernetes.io/name': 'aiplane' },
        },
        dns: {
          namespaceLabels: { 'kubernetes.io/metadata.name': 'dns' },
          podLabels: { 'k8s-app': 'coredns' },
        },
        clusterCidrs: ['10.244.0.0/16', '10.96.0.0/12', 'fd00:10:244::/56'],
        extraEgressCidrs: ['10.96.0.10/32'],
      },
    );
  });

  it('denies no cluster range when told "none" (link-local and metadata stay denied by the builder)', () => {
    assert.deepEqual(isolation({ [`${P}_CLUSTER_CIDRS`]: 'none' }).clusterCidrs, []);
  });

  const refusals: [string, Record<string, string>, RegExp][] = [
    ['a non-boolean switch', { [`${P}_ENABLED`]: 'yes' }, /_ENABLED must be true or false/],
    [
      'labels without a value',
      { [`${P}_INGRESS_POD_LABELS`]: 'app' },
      /_INGRESS_POD_LABELS must be labels key=value/,
    ],
    [
      'a label key that Kubernetes refuses',
      { [`${P}_DNS_POD_LABELS`]: 'bad key=x' },
      /_DNS_POD_LABELS must be labels/,
    ],
    [
      'a CIDR with host bits',
      { [`${P}_CLUSTER_CIDRS`]: '10.0.0.1/8' },
      /_CLUSTER_CIDRS: "10.0.0.1\/8" has host bits set/,
    ],
    [
      'the whole internet as an extra',
      { [`${P}_EXTRA_EGRESS_CIDRS`]: '0.0.0.0/0' },
      /_EXTRA_EGRESS_CIDRS: "0.0.0.0\/0" needs a prefix length from 1 to 32/,
    ],
    ['a host name', { [`${P}_CLUSTER_CIDRS`]: 'db.internal/32' }, /is not an IPv4 or IPv6/],
  ];
  for (const [what, env, message] of refusals) {
    it(`refuses ${what}, naming the variable`, () => {
      assert.match(problems(env), message);
    });
  }
});

describe('checkCidr', () => {
  const cases: [string, string | undefined][] = [
    ['10.0.0.0/8', undefined],
    ['169.254.169.254/32', undefined],
    ['fd00:ec2::254/128', undefined],
    ['fc00::/7', undefined],
    ['::ffff:10.0.0.0/104', undefined],
    ['fd00::1/64', 'has host bits set (use the network address)'],
    ['FC00::/7', 'must be written in lower case'],
    ['10.0.0.0', 'is not address/prefix'],
    ['10.0.0.0/33', 'needs a prefix length from 1 to 32'],
    ['::/0', 'needs a prefix length from 1 to 128'],
  ];
  for (const [cidr, why] of cases) {
    it(`${why ? 'refuses' : 'accepts'} ${cidr}`, () => assert.equal(checkCidr(cidr), why));
  }
});

describe('parseLabels', () => {
  it('keeps an empty value and a prefixed key', () => {
    assert.deepEqual(parseLabels('X', 'example.com/tier=,a=b'), {
      labels: { 'example.com/tier': '', a: 'b' },
    });
  });
});
