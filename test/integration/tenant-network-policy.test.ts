import assert from 'node:assert/strict';
import { isNotFound, kubeRequest } from '@aiplane/lib';
import { waitFor, type ManagedProcess } from '@aiplane/hack';
import { startTestApi, type TestApi } from './api-helpers.js';
import { kubeConfig } from './harness.js';
import { provisionTenant, type Tenant } from './fixtures/index.js';
import { startOperatorProcess } from './operator-process.js';

/** A NetworkPolicy as the apiserver stores it (only what these tests read). */
interface StoredPolicy {
  metadata: {
    uid: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; uid: string; controller?: boolean }[];
  };
  spec: {
    podSelector: Record<string, unknown>;
    policyTypes: string[];
    ingress?: { from: Peer[] }[];
    egress?: { to: Peer[]; ports?: { protocol: string; port: number }[] }[];
  };
}
interface Peer {
  namespaceSelector?: { matchLabels?: Record<string, string> };
  podSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}

const INGRESS = 'aiplane-tenant-ingress';
const EGRESS = 'aiplane-tenant-egress';
const path = (namespace: string, name = '') =>
  `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies${name ? `/${name}` : ''}`;

async function policy(namespace: string, name: string): Promise<StoredPolicy | undefined> {
  try {
    return await kubeRequest<StoredPolicy>(kubeConfig(), {
      method: 'GET',
      path: path(namespace, name),
    });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function policyNames(namespace: string): Promise<string[]> {
  const list = await kubeRequest<{ items: { metadata: { name: string } }[] }>(kubeConfig(), {
    method: 'GET',
    path: path(namespace),
  });
  return list.items.map((p) => p.metadata.name).sort();
}

const ISOLATION = {
  AIPLANE_OPERATOR_NETWORK_POLICY_INGRESS_NAMESPACE_LABELS:
    'kubernetes.io/metadata.name=aiplane-np',
  AIPLANE_OPERATOR_NETWORK_POLICY_INGRESS_POD_LABELS:
    'app.kubernetes.io/name=aiplane,app.kubernetes.io/instance=it-np',
  AIPLANE_OPERATOR_NETWORK_POLICY_CLUSTER_CIDRS: '10.0.0.0/8,fd00:10::/64',
  AIPLANE_OPERATOR_NETWORK_POLICY_EXTRA_EGRESS_CIDRS: '10.9.8.7/32',
};

describe('tenant network isolation (operator, real kube-apiserver; enforcement is the kind e2e)', function () {
  let api: TestApi;
  let operator: ManagedProcess | undefined;
  let tenant: Tenant;

  before(async function () {
    this.timeout(180_000);
    api = await startTestApi('api-network-policy');
    operator = startOperatorProcess(ISOLATION);
    tenant = await provisionTenant(api.url, 'np');
  });
  after(async function () {
    await operator?.stop();
    await api?.close();
  });

  it('writes an ingress policy admitting only the configured platform pods, owned by the tenant', async function () {
    const p = await policy(tenant.namespace, INGRESS);
    assert.ok(p, 'no ingress policy after provisioning');
    assert.deepEqual(p.spec.podSelector, {}, 'every pod of the namespace');
    assert.deepEqual(p.spec.policyTypes, ['Ingress']);
    assert.deepEqual(p.spec.ingress, [
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'aiplane-np' } },
            podSelector: {
              matchLabels: {
                'app.kubernetes.io/name': 'aiplane',
                'app.kubernetes.io/instance': 'it-np',
              },
            },
          },
        ],
      },
    ]);
    assert.equal(p.metadata.labels?.['app.kubernetes.io/managed-by'], 'aiplane-operator');
    const owner = p.metadata.ownerReferences?.find((o) => o.kind === 'TenantLifecycle');
    assert.equal(owner?.uid, tenant.id);
  });

  it('writes an egress policy allowing DNS and the internet but not the cluster, link-local or metadata', async function () {
    const p = await policy(tenant.namespace, EGRESS);
    assert.ok(p, 'no egress policy after provisioning');
    assert.deepEqual(p.spec.policyTypes, ['Egress']);
    const [dns, internet, extra, ...rest] = p.spec.egress ?? [];
    assert.equal(rest.length, 0);
    assert.deepEqual(dns, {
      to: [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
          podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        },
      ],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    });
    const v4 = internet?.to.find((x) => x.ipBlock?.cidr === '0.0.0.0/0')?.ipBlock?.except ?? [];
    const v6 = internet?.to.find((x) => x.ipBlock?.cidr === '::/0')?.ipBlock?.except ?? [];
    for (const denied of ['10.0.0.0/8', '169.254.0.0/16', '169.254.169.254/32'])
      assert.ok(v4.includes(denied), `${denied} not denied: ${v4.join(',')}`);
    for (const denied of ['fd00:10::/64', 'fe80::/10', 'fd00:ec2::254/128'])
      assert.ok(v6.includes(denied), `${denied} not denied: ${v6.join(',')}`);
    assert.equal(internet?.ports, undefined, 'the internet on every port');
    assert.deepEqual(extra, { to: [{ ipBlock: { cidr: '10.9.8.7/32' } }] });
  });

  it('re-creates a deleted policy and puts back an edited one', async function () {
    this.timeout(60_000);
    const before = await policy(tenant.namespace, EGRESS);
    assert.ok(before);
    await kubeRequest(kubeConfig(), { method: 'DELETE', path: path(tenant.namespace, EGRESS) });
    const ingress = await policy(tenant.namespace, INGRESS);
    assert.ok(ingress);
    // Widened behind the operator's back: every namespace may connect.
    await kubeRequest(kubeConfig(), {
      method: 'PATCH',
      path: path(tenant.namespace, INGRESS),
      contentType: 'application/merge-patch+json',
      body: { spec: { ingress: [{ from: [{ namespaceSelector: {} }] }] } },
    });
    await waitFor(
      'the deleted egress policy to be back',
      async () => {
        const p = await policy(tenant.namespace, EGRESS);
        return p !== undefined && p.metadata.uid !== before.metadata.uid;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    await waitFor(
      'the edited ingress policy to admit only the platform again',
      async () => {
        const p = await policy(tenant.namespace, INGRESS);
        return JSON.stringify(p?.spec.ingress) === JSON.stringify(ingress.spec.ingress);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  });

  it('writes none when isolation is disabled, and removes the ones it wrote', async function () {
    this.timeout(180_000);
    await operator?.stop();
    operator = startOperatorProcess({
      ...ISOLATION,
      AIPLANE_OPERATOR_NETWORK_POLICY_ENABLED: 'false',
    });
    const open = await provisionTenant(api.url, 'np-off');
    assert.deepEqual(await policyNames(open.namespace), []);
    await waitFor(
      'the policies of the first tenant to be removed',
      async () => (await policyNames(tenant.namespace)).length === 0,
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  });
});
