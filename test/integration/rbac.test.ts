import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION } from '@aiplane/crds';
import { httpStatusOf, kubeRequest } from '@aiplane/lib';
import { waitFor, type ManagedProcess } from '@aiplane/hack';
import { startTestApi, type TestApi } from './api-helpers.js';
import { environment, kubeConfig } from './harness.js';
import { CHART, createReleaseSecrets, helm } from './helm-helpers.js';
import { kubectl } from './kube-helpers.js';
import {
  addMembers,
  caller,
  provisionTenant,
  removeMembers,
  type Tenant,
} from './fixtures/index.js';
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
    name?: string;
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

interface RoleBinding {
  roleRef: { kind: string; name: string };
  subjects: { namespace?: string; name: string }[];
}

/** The HTTP status a request was answered with (2xx included). */
async function statusOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return 200;
  } catch (err) {
    return httpStatusOf(err);
  }
}

/** A variable of the operator Deployment the chart installed. */
async function chartOperatorEnv(name: string): Promise<string> {
  const d = await kubeRequest<{
    spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
  }>(kubeConfig(), {
    method: 'GET',
    path: `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${account('operator')}`,
  });
  const value = d.spec.template.spec.containers[0]?.env?.find((e) => e.name === name)?.value;
  if (value === undefined) throw new Error(`the chart gives the operator no ${name}`);
  return value;
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
    ['operator', { verb: 'list', resource: 'secrets', namespace: '' }, false],
    // Secrets only in tenant namespaces, through the RoleBinding it makes there (tenant-x has none).
    ['operator', { verb: 'get', resource: 'secrets', namespace: 'kube-system' }, false],
    ['operator', { verb: 'get', resource: 'secrets' }, false],
    [
      'operator',
      { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
      true,
    ],
    // Only its own RoleBindings (named after the tenant ClusterRoles) may it change or remove.
    [
      'operator',
      {
        verb: 'delete',
        group: 'rbac.authorization.k8s.io',
        resource: 'rolebindings',
        name: `${RELEASE}-api-tenant`,
      },
      true,
    ],
    [
      'operator',
      {
        verb: 'delete',
        group: 'rbac.authorization.k8s.io',
        resource: 'rolebindings',
        name: 'someone-elses',
        namespace: 'kube-system',
      },
      false,
    ],
    [
      'operator',
      {
        verb: 'bind',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        name: `${RELEASE}-api-tenant`,
        namespace: '',
      },
      true,
    ],
    [
      'operator',
      {
        verb: 'bind',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        name: 'cluster-admin',
        namespace: '',
      },
      false,
    ],
    [
      'operator',
      {
        verb: 'escalate',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        name: `${RELEASE}-api-tenant`,
        namespace: '',
      },
      false,
    ],
    // Tenant network isolation (docs/adr/0014): server-side apply creates and patches.
    ['operator', { verb: 'patch', group: 'networking.k8s.io', resource: 'networkpolicies' }, true],
    ['operator', { verb: 'create', group: 'networking.k8s.io', resource: 'networkpolicies' }, true],
    ['api', { verb: 'delete', group: 'networking.k8s.io', resource: 'networkpolicies' }, false],
    [
      'api',
      { verb: 'create', group: 'aiplane.io', resource: 'tenantlifecycles', namespace: '' },
      true,
    ],
    // Outside a provisioned tenant namespace the API writes nothing (tenant-x has no binding).
    ['api', { verb: 'create', resource: 'secrets' }, false],
    ['api', { verb: 'create', resource: 'secrets', namespace: 'default' }, false],
    ['api', { verb: 'create', resource: 'pods', namespace: 'kube-system' }, false],
    [
      'api',
      { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'default' },
      false,
    ],
    [
      'api',
      { verb: 'create', group: 'aiplane.io', resource: 'mcpservers', namespace: 'default' },
      false,
    ],
    ['api', { verb: 'list', group: 'aiplane.io', resource: 'mcpservers', namespace: '' }, true],
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
    const what = `${attrs.verb} ${attrs.group ? `${attrs.group}/` : ''}${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''}${attrs.name ? ` ${attrs.name}` : ''}${attrs.namespace === '' ? ' (cluster-wide)' : ` in ${attrs.namespace ?? 'tenant-x'}`}`;
    it(`${expected ? 'lets' : 'does not let'} the ${who} ${what}`, async function () {
      assert.equal(await allowed(who, attrs), expected);
    });
  }

  describe('the operator and the API running as their ServiceAccounts', function () {
    let api: TestApi;
    let operator: ManagedProcess;
    let a: Tenant;
    let apiKc: KubeConfig;
    let operatorKc: KubeConfig;
    before(async function () {
      this.timeout(240_000);
      const apiAccount = await serviceAccountConfig('api');
      apiKc = apiAccount.kc;
      api = await startTestApi('api-rbac', {}, { kc: apiAccount.kc });
      const operatorAccount = await serviceAccountConfig('operator');
      operatorKc = operatorAccount.kc;
      operator = startOperatorProcess({
        KUBECONFIG: operatorAccount.path,
        AIPLANE_OPERATOR_LEADER_ELECTION: 'true',
        AIPLANE_OPERATOR_LEASE_NAMESPACE: NAMESPACE,
        // Which ClusterRoles to bind per tenant namespace, as the chart tells the operator.
        AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS: await chartOperatorEnv(
          'AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS',
        ),
      });
      a = await provisionTenant(api.url, 'rbac');
      await addMembers(a.organizationId, ['admin']);
    });
    after(async function () {
      if (a) await removeMembers(a.organizationId, ['admin']);
      await operator?.stop();
      await api?.close();
    });

    it('lets the API write Secrets, Pods and McpServers in a provisioned tenant namespace, through the RoleBindings the operator made', async function () {
      const bindings = await kubeRequest<{ items: RoleBinding[] }>(kubeConfig(), {
        method: 'GET',
        path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${a.namespace}/rolebindings`,
      });
      assert.deepEqual(
        bindings.items
          .map(
            (b) =>
              `${b.roleRef.kind}/${b.roleRef.name} → ${b.subjects.map((x) => `${x.namespace}/${x.name}`).join(',')}`,
          )
          .sort(),
        [
          `ClusterRole/${RELEASE}-api-tenant → ${NAMESPACE}/${account('api')}`,
          `ClusterRole/${RELEASE}-operator-tenant → ${NAMESPACE}/${account('operator')}`,
        ],
      );
      const writes = [
        { verb: 'create', resource: 'secrets', namespace: a.namespace },
        { verb: 'create', resource: 'pods', namespace: a.namespace },
        { verb: 'create', group: 'apps', resource: 'deployments', namespace: a.namespace },
        { verb: 'create', group: 'aiplane.io', resource: 'mcpservers', namespace: a.namespace },
      ];
      // The apiserver's RBAC cache sees a new binding shortly after it is written.
      await waitFor(
        'the API’s tenant rules in force',
        async () => (await Promise.all(writes.map((w) => allowed('api', w)))).every(Boolean),
        { timeoutMs: 10_000 },
      );
      assert.equal(
        await allowed('operator', { verb: 'get', resource: 'secrets', namespace: a.namespace }),
        true,
      );
      // Still nothing beyond the tenant rules there.
      assert.equal(
        await allowed('api', { verb: 'get', resource: 'secrets', namespace: a.namespace }),
        false,
      );
    });

    it('refuses the API’s own writes of Secrets and Pods outside tenant namespaces (the real apiserver, the API’s token)', async function () {
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { generateName: 'rbac-refused-' },
        stringData: { x: 'y' },
      };
      for (const namespace of ['default', 'kube-system']) {
        assert.equal(
          await statusOf(
            kubeRequest(apiKc, {
              method: 'POST',
              path: `/api/v1/namespaces/${namespace}/secrets`,
              body: secret,
            }),
          ),
          403,
          `a Secret in ${namespace}`,
        );
        assert.equal(
          await statusOf(
            kubeRequest(apiKc, {
              method: 'POST',
              path: `/api/v1/namespaces/${namespace}/pods`,
              query: { dryRun: 'All' },
              body: {
                apiVersion: 'v1',
                kind: 'Pod',
                metadata: { generateName: 'rbac-refused-' },
                spec: { containers: [{ name: 'c', image: 'busybox' }] },
              },
            }),
          ),
          403,
          `a Pod in ${namespace}`,
        );
      }
    });

    it('refuses the operator reading Secrets outside tenant namespaces, one by name or all of them (its token)', async function () {
      assert.equal(
        await statusOf(
          kubeRequest(operatorKc, {
            method: 'GET',
            path: '/api/v1/namespaces/kube-system/secrets/any',
          }),
        ),
        403,
      );
      assert.equal(
        await statusOf(kubeRequest(operatorKc, { method: 'GET', path: '/api/v1/secrets' })),
        403,
      );
    });

    it('provisions a tenant and runs a managed MCP server with exactly the declared permissions', async function () {
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
      // Nothing was refused along the way (a refusal would be retried, and logged). Lines about
      // other suites' leftovers are not this tenant's: their namespaces got no RoleBindings from
      // the operators that provisioned them, so this operator retries there until its own
      // tenant reconcile binds them (the same happens once after an upgrade).
      const log = readFileSync(operator.logFile, 'utf8');
      const namespaces = (line: string) =>
        [...line.matchAll(/"key":"([^"/]+)\/|\/namespaces\/([^/"\s]+)\//g)].map(
          (m) => m[1] ?? m[2],
        );
      const refusals = log.split('\n').filter((line) => {
        if (!/forbidden|"status":403/i.test(line)) return false;
        const named = namespaces(line);
        return named.length === 0 || named.includes(a.namespace);
      });
      assert.deepEqual(refusals, []);
      assert.match(log, /operator started/);
    });
  });
});
