import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION } from '@aiplane/crds';
import { kubeRequest } from '@aiplane/lib';
import { waitFor, type ManagedProcess } from '@aiplane/hack';
import { startTestApi, type TestApi } from './api-helpers.js';
import { environment, kubeConfig } from './harness.js';
import { CHART, createReleaseSecrets, helm, kubectl } from './helm-helpers.js';
import { caller, provisionTenant, setMembership, type Tenant } from './mcp-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { rememberSecret } from './secrets.js';

const RELEASE = 'it-rbac';
const NAMESPACE = 'aiplane-rbac';
type Component = 'operator' | 'api' | 'gateway';
/** The chart's ServiceAccount of a component. */
const account = (c: Component) => `${RELEASE}-${c}`;
const user = (c: Component) => `system:serviceaccount:${NAMESPACE}:${account(c)}`;

async function allowed(
  who: Component,
  attrs: {
    verb: string;
    resource: string;
    group?: string;
    subresource?: string;
    namespace?: string;
  },
): Promise<boolean> {
  const review = await kubeRequest<{ status: { allowed: boolean } }>(kubeConfig(), {
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: user(who),
        groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`],
        resourceAttributes: {
          group: attrs.group ?? '',
          namespace: attrs.namespace ?? 'tenant-x',
          ...attrs,
        },
      },
    },
  });
  return review.status.allowed;
}

/** A kubeconfig acting as the component's ServiceAccount (a TokenRequest token). */
async function serviceAccountConfig(
  component: Component,
): Promise<{ kc: KubeConfig; path: string }> {
  const { status } = await kubeRequest<{ status: { token: string } }>(kubeConfig(), {
    method: 'POST',
    path: `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${account(component)}/token`,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  });
  rememberSecret(status.token);
  const admin = kubeConfig();
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('no cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: component, token: status.token }],
    contexts: [{ name: component, cluster: cluster.name, user: component }],
    currentContext: component,
  });
  const path = join(environment().controlPlane.logDir, `..`, `kubeconfig-${component}`);
  writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
  return { kc, path };
}

describe('RBAC declared next to the code (the chart installed with Helm, real apiserver)', function () {
  before(async function () {
    // The release's ServiceAccounts, ClusterRoles, bindings and the operator's Role, as a user
    // installs them (the harness already installed the CRDs).
    await kubectl(['create', 'namespace', NAMESPACE]).catch(() => undefined);
    await createReleaseSecrets(NAMESPACE);
    await helm('install', RELEASE, CHART, '--namespace', NAMESPACE, '--set', 'crds.enabled=false');
  });
  after(async function () {
    await helm('uninstall', RELEASE, '--namespace', NAMESPACE).catch(() => undefined);
  });

  const samples: [Component, Parameters<typeof allowed>[1], boolean][] = [
    ['operator', { verb: 'create', resource: 'namespaces', namespace: '' }, true],
    [
      'operator',
      { verb: 'patch', group: 'aiplane.io', resource: 'mcpservers', subresource: 'status' },
      true,
    ],
    ['operator', { verb: 'create', group: 'apps', resource: 'deployments' }, true],
    [
      'operator',
      { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: NAMESPACE },
      true,
    ],
    ['operator', { verb: 'update', group: 'coordination.k8s.io', resource: 'leases' }, false],
    ['operator', { verb: 'create', group: 'aiplane.io', resource: 'mcpservers' }, false],
    ['operator', { verb: 'create', resource: 'pods', subresource: 'exec' }, false],
    [
      'operator',
      {
        verb: 'create',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        namespace: '',
      },
      false,
    ],
    ['operator', { verb: 'list', resource: 'secrets' }, false],
    // Tenant network isolation (docs/adr/0014): server-side apply creates and patches.
    ['operator', { verb: 'patch', group: 'networking.k8s.io', resource: 'networkpolicies' }, true],
    ['operator', { verb: 'create', group: 'networking.k8s.io', resource: 'networkpolicies' }, true],
    ['api', { verb: 'delete', group: 'networking.k8s.io', resource: 'networkpolicies' }, false],
    [
      'api',
      { verb: 'create', group: 'aiplane.io', resource: 'tenantlifecycles', namespace: '' },
      true,
    ],
    ['api', { verb: 'create', resource: 'secrets' }, true],
    ['api', { verb: 'get', resource: 'secrets' }, false],
    [
      'api',
      {
        verb: 'patch',
        group: 'aiplane.io',
        resource: 'tenantlifecycles',
        subresource: 'status',
        namespace: '',
      },
      false,
    ],
    ['api', { verb: 'create', resource: 'namespaces', namespace: '' }, false],
    ['gateway', { verb: 'watch', group: 'aiplane.io', resource: 'mcpservers' }, true],
    [
      'api',
      { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: NAMESPACE },
      false,
    ],
    ['gateway', { verb: 'get', resource: 'secrets' }, false],
    ['gateway', { verb: 'create', group: 'aiplane.io', resource: 'mcpservers' }, false],
  ];
  for (const [who, attrs, expected] of samples) {
    const what = `${attrs.verb} ${attrs.group ? `${attrs.group}/` : ''}${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''}${attrs.namespace === '' ? ' (cluster-wide)' : ` in ${attrs.namespace ?? 'tenant-x'}`}`;
    it(`${expected ? 'lets' : 'does not let'} the ${who} ${what}`, async function () {
      assert.equal(await allowed(who, attrs), expected);
    });
  }

  describe('the operator and the API running as their ServiceAccounts', function () {
    let api: TestApi;
    let operator: ManagedProcess;
    let a: Tenant;
    before(async function () {
      this.timeout(240_000);
      const apiAccount = await serviceAccountConfig('api');
      api = await startTestApi('api-rbac', {}, { kc: apiAccount.kc });
      const operatorAccount = await serviceAccountConfig('operator');
      operator = startOperatorProcess({
        KUBECONFIG: operatorAccount.path,
        AIPLANE_OPERATOR_LEADER_ELECTION: 'true',
        AIPLANE_OPERATOR_LEASE_NAMESPACE: NAMESPACE,
      });
    });
    after(async function () {
      if (a) await setMembership(a.organizationId, 'admin', false);
      await operator?.stop();
      await api?.close();
    });

    it('provisions a tenant and runs a managed MCP server with exactly the declared permissions', async function () {
      a = await provisionTenant(api.url, 'rbac');
      await setMembership(a.organizationId, 'admin', true);
      const admin = caller(api.url, 'admin', a.organizationId);
      const r = await admin('POST', '/v1/mcp/servers', {
        runtime: 'managed',
        name: 'files',
        display_name: 'Files',
        image: 'ghcr.io/acme/files-mcp:1.0.0',
        port: 8080,
        env: { TOKEN: 'rbac-env' },
      });
      assert.equal(r.status, 200, r.text);
      const id = (r.json() as { id: string }).id;
      await waitFor('a status written by the operator', async () => {
        const s = await kubeRequest<{ status?: { observedGeneration?: number } }>(kubeConfig(), {
          method: 'GET',
          path: `/apis/${API_VERSION}/namespaces/${a.namespace}/mcpservers/files`,
        });
        return s.status?.observedGeneration !== undefined;
      });
      await kubeRequest(kubeConfig(), {
        method: 'GET',
        path: `/apis/apps/v1/namespaces/${a.namespace}/deployments/files`,
      });
      assert.equal((await admin('DELETE', `/v1/mcp/servers/${id}`)).status, 204);
      // Nothing was refused along the way (a refusal would be retried, and logged).
      const log = readFileSync(operator.logFile, 'utf8');
      assert.doesNotMatch(log, /forbidden|"status":403/i);
      assert.match(log, /operator started/);
    });
  });
});
