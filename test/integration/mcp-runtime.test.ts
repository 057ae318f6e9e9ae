import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, type V1Deployment } from '@kubernetes/client-node';
import { API_VERSION, type McpServer } from '@aiplane/crds';
import { kubeRequest } from '@aiplane/lib';
import type { ServerRecord, ServerStatusRecord } from '@aiplane/api';
import {
  freePort,
  startMcpTestServer,
  waitFor,
  type ManagedProcess,
  type McpTestServer,
} from '@aiplane/hack';
import { startTestApi, type TestApi } from './api-helpers.js';
import { kubeConfig } from './harness.js';
import { markPodsReady } from './kubelet.js';
import {
  addMembers,
  caller,
  provisionTenant,
  removeMembers,
  type Tenant,
  type Call,
} from './fixtures/index.js';
import { link } from './mcp-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { rememberSecret } from './secrets.js';

type Status = ServerStatusRecord;
type Server = ServerRecord;

const IMAGE = 'ghcr.io/acme/files-mcp:1.2.3';

describe('managed MCP runtime (operator, kube-apiserver, kube-controller-manager, a real MCP server)', function () {
  let api: TestApi;
  let operator: ManagedProcess;
  let a: Tenant;
  let admin: Call;
  const apps = () => kubeConfig().makeApiClient(AppsV1Api);
  const core = () => kubeConfig().makeApiClient(CoreV1Api);

  const create = async (body: Record<string, unknown>): Promise<Server> => {
    const r = await admin('POST', '/v1/mcp/servers', {
      runtime: 'managed',
      display_name: String(body.name),
      image: IMAGE,
      port: 8080,
      ...body,
    });
    assert.equal(r.status, 200, r.text);
    return r.json() as Server;
  };
  const deploymentOf = async (name: string): Promise<V1Deployment> => {
    let found: V1Deployment | undefined;
    await waitFor(`Deployment ${name}`, async () => {
      found = await apps()
        .readNamespacedDeployment({ name, namespace: a.namespace })
        .catch(() => undefined);
      return found !== undefined;
    });
    // Plain JSON, as the apiserver stores it (the typed client answers class instances).
    return JSON.parse(JSON.stringify(found)) as V1Deployment;
  };
  const statusOf = async (s: Server): Promise<Status | null> => {
    const r = await admin('GET', `/v1/mcp/servers/${s.id}`);
    return (r.json() as Server).status;
  };
  const awaitStatus = async (s: Server, what: string, ok: (st: Status) => boolean) => {
    let last: Status | null = null;
    await waitFor(
      what,
      async () => {
        last = await statusOf(s);
        return last !== null && ok(last);
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; last status ${JSON.stringify(last)}`);
    });
    return last as unknown as Status;
  };
  const condition = (st: Status, type: string) => st.conditions.find((c) => c.type === type);

  before(async function () {
    this.timeout(240_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess({
      AIPLANE_OPERATOR_WORKLOAD_HOST: '127.0.0.1',
      AIPLANE_OPERATOR_MCP_RECHECK_SECONDS: '2',
      AIPLANE_OPERATOR_MCP_HANDSHAKE_TIMEOUT_MS: '2000',
    });
    api = await startTestApi('api-mcp-runtime', { AIPLANE_MCP_WORKLOAD_HOST: '127.0.0.1' });
    a = await provisionTenant(api.url, 'mcp-run');
    await addMembers(a.organizationId, ['admin']);
    admin = caller(api.url, 'admin', a.organizationId);
  });
  after(async function () {
    if (a) await removeMembers(a.organizationId, ['admin']);
    await operator?.stop();
    await api?.close();
  });

  it('creates a Deployment (one replica, restricted defaults, resources, args, env from the Secret) and a Service, owned by the server', async function () {
    const token = `env-${Math.random().toString(36).slice(2)}`;
    rememberSecret(token);
    const s = await create({
      name: 'files',
      arguments: ['--transport', 'http'],
      env: { API_TOKEN: token },
      resources: { cpu_request: '250m', memory_limit: '1Gi', cpu_limit: null },
      security: { run_as_user: 10001, run_as_non_root: null },
    });
    const resource = await kubeRequest<McpServer>(kubeConfig(), {
      method: 'GET',
      path: `/apis/${API_VERSION}/namespaces/${a.namespace}/mcpservers/files`,
    });
    const d = await deploymentOf('files');
    assert.equal(d.spec?.replicas, 1);
    assert.deepEqual(
      d.metadata?.ownerReferences?.map((o) => [o.kind, o.uid, o.controller]),
      [['McpServer', s.id, true]],
    );
    const pod = d.spec?.template.spec;
    const c = pod?.containers[0];
    assert.equal(c?.image, IMAGE);
    assert.deepEqual(c?.args, ['--transport', 'http']);
    assert.equal(
      c?.command,
      undefined,
      'the entrypoint is kept; arguments replace the default command',
    );
    assert.deepEqual(
      c?.ports?.map((p) => p.containerPort),
      [8080],
    );
    assert.deepEqual(c?.envFrom, [{ secretRef: { name: resource.spec.envSecretRef?.name } }]);
    assert.equal(c?.env, undefined, 'no value is inlined in the pod template');
    assert.deepEqual(c?.resources, {
      requests: { cpu: '250m', memory: '128Mi' },
      limits: { cpu: '1', memory: '1Gi' },
    });
    assert.deepEqual(pod?.securityContext, {
      runAsNonRoot: true,
      runAsUser: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    assert.deepEqual(c?.securityContext, {
      allowPrivilegeEscalation: false,
      privileged: false,
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    assert.equal(pod?.automountServiceAccountToken, false);
    assert.match(
      d.spec?.template.metadata?.annotations?.['aiplane.io/env-checksum'] ?? '',
      /^[0-9a-f]{64}$/,
    );
    assert.ok(!JSON.stringify(d).includes(token));

    let svc = await core()
      .readNamespacedService({ name: 'files', namespace: a.namespace })
      .catch(() => undefined);
    await waitFor('the Service', async () => {
      svc ??= await core()
        .readNamespacedService({ name: 'files', namespace: a.namespace })
        .catch(() => undefined);
      return svc !== undefined;
    });
    if (!svc) assert.fail('no Service');
    assert.equal(svc.spec?.type, 'ClusterIP');
    assert.deepEqual(
      svc.spec?.ports?.map((p) => [p.port, p.targetPort]),
      [[8080, 'mcp']],
    );
    assert.deepEqual(svc.spec?.selector, d.spec?.selector?.matchLabels);
    assert.equal(svc.metadata?.ownerReferences?.[0]?.uid, s.id);
  });

  it('keeps the platform defaults for nulls and omissions, and names a digit-first server’s Service validly', async function () {
    await create({
      name: '9lives',
      resources: { cpu_request: null, memory_request: null, cpu_limit: null, memory_limit: null },
      security: {
        run_as_non_root: null,
        run_as_user: null,
        run_as_group: null,
        read_only_root_filesystem: null,
      },
    });
    const d = await deploymentOf('9lives');
    const c = d.spec?.template.spec?.containers[0];
    assert.deepEqual(c?.resources, {
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { cpu: '1', memory: '512Mi' },
    });
    assert.equal(c?.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(d.spec?.template.spec?.securityContext?.runAsNonRoot, true);
    let services = await core().listNamespacedService({
      namespace: a.namespace,
      labelSelector: 'app.kubernetes.io/instance=9lives',
    });
    await waitFor('the Service of 9lives', async () => {
      services = await core().listNamespacedService({
        namespace: a.namespace,
        labelSelector: 'app.kubernetes.io/instance=9lives',
      });
      return services.items.length > 0;
    });
    assert.match(services.items[0]?.metadata?.name ?? '', /^mcp-[0-9a-f]{16}$/);
  });

  it('reports status without a kubelet: ready false, Available False, the in-cluster url', async function () {
    const s = (await admin('GET', '/v1/mcp/servers')).json() as { servers: Server[] };
    const files = s.servers.find((x) => x.name === 'files') as Server;
    const st = await awaitStatus(files, 'a first status', () => true);
    assert.equal(st.ready, false);
    assert.equal(st.ready_replicas, 0);
    assert.equal(st.url, `http://files.${a.namespace}.svc:8080/mcp`);
    assert.equal(condition(st, 'Available')?.status, 'False');
    assert.equal(condition(st, 'McpHandshake')?.status, 'Unknown');
    assert.equal(condition(st, 'Ready')?.status, 'False');
    assert.ok(!Number.isNaN(Date.parse(condition(st, 'Ready')?.last_transition_time ?? '')));
  });

  describe('with the harness playing the kubelet', function () {
    let port: number;
    let workload: McpTestServer;
    let server: Server;

    before(async function () {
      port = await freePort();
      workload = await startMcpTestServer({ port, tools: [{ name: 'lookup' }] });
      server = await create({ name: 'live', port });
    });
    after(async function () {
      await workload?.close();
    });

    it('is ready only after the Deployment is available and the MCP handshake succeeded', async function () {
      const before = await awaitStatus(server, 'a first status', () => true);
      assert.equal(before.ready, false);
      await markPodsReady(a.namespace, `aiplane.io/mcp-server-uid=${server.id}`);
      const st = await awaitStatus(server, 'ready', (x) => x.ready);
      assert.equal(st.ready_replicas, 1);
      assert.equal(st.replicas, 1);
      assert.equal(condition(st, 'Available')?.status, 'True');
      assert.equal(condition(st, 'McpHandshake')?.status, 'True');
      assert.match(
        condition(st, 'McpHandshake')?.message ?? '',
        /answered with protocol 20\d\d-\d\d-\d\d/,
      );
      assert.ok(workload.seenAuthorization.length > 0, 'the handshake reached the workload');
    });

    it('lists the managed server’s tools through the API once it is ready, every one allowed by the default empty allowlist', async function () {
      await link(admin, server.id, 'any');
      const r = await admin('GET', `/v1/mcp/servers/${server.id}/available-tools`);
      assert.equal(r.status, 200, r.text);
      const { tools } = r.json() as { tools: { name: string; allowed: boolean }[] };
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['add', 'echo', 'lookup']);
      // Created without tool_allowlist: the default [] permits every tool.
      assert.deepEqual(server.tool_allowlist, []);
      assert.ok(tools.length > 0, 'the upstream offers tools');
      assert.deepEqual(
        tools.filter((t) => t.allowed !== true).map((t) => t.name),
        [],
        'every tool is allowed',
      );
    });

    it('turns ready false with the reason when the workload stops speaking MCP', async function () {
      await workload.stop();
      const st = await awaitStatus(server, 'not ready', (x) => !x.ready);
      assert.equal(condition(st, 'Available')?.status, 'True');
      assert.equal(condition(st, 'McpHandshake')?.status, 'False');
      assert.equal(condition(st, 'McpHandshake')?.reason, 'HandshakeFailed');
      assert.match(condition(st, 'McpHandshake')?.message ?? '', /connection refused/);
      assert.equal(condition(st, 'Ready')?.status, 'False');
    });
  });

  it('is ready when a token-protected workload answers with a Bearer challenge', async function () {
    const port = await freePort();
    const protectedWorkload = await startMcpTestServer({ port, token: 'per-user-only' });
    rememberSecret('per-user-only');
    try {
      const s = await create({ name: 'guarded', port });
      await awaitStatus(s, 'a first status', () => true);
      await markPodsReady(a.namespace, `aiplane.io/mcp-server-uid=${s.id}`);
      const st = await awaitStatus(s, 'ready', (x) => x.ready);
      assert.equal(condition(st, 'McpHandshake')?.reason, 'AuthenticationRequired');
    } finally {
      await protectedWorkload.close();
    }
  });

  it('answers 400 mcp_server_image_invalid when Pod Security (restricted) would refuse the pod', async function () {
    for (const security of [{ run_as_non_root: false }, { run_as_user: 0 }]) {
      const r = await admin('POST', '/v1/mcp/servers', {
        runtime: 'managed',
        name: 'rooted',
        display_name: 'Rooted',
        image: IMAGE,
        port: 8080,
        security,
      });
      assert.equal(r.status, 400, r.text);
      const body = r.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'mcp_server_image_invalid');
      assert.match(body.error.message, /PodSecurity|restricted/);
    }
    await assert.rejects(
      kubeRequest(kubeConfig(), {
        method: 'GET',
        path: `/apis/${API_VERSION}/namespaces/${a.namespace}/mcpservers/rooted`,
      }),
    );
  });

  it('says in the status why the cluster refused the workload (a full Service quota)', async function () {
    const quota = 'no-more-services';
    await core().createNamespacedResourceQuota({
      namespace: a.namespace,
      body: { metadata: { name: quota }, spec: { hard: { services: '0' } } },
    });
    try {
      await waitFor('the quota to be computed', async () => {
        const q = await core().readNamespacedResourceQuota({ name: quota, namespace: a.namespace });
        return q.status?.used?.services !== undefined;
      });
      const s = await create({ name: 'unserved' });
      const st = await awaitStatus(s, 'a refusal in the status', (x) =>
        x.conditions.some((c) => c.reason === 'WorkloadNotApplied'),
      );
      assert.equal(st.ready, false);
      assert.match(condition(st, 'Ready')?.message ?? '', /HTTP 403.*exceeded quota/);
    } finally {
      await core().deleteNamespacedResourceQuota({ name: quota, namespace: a.namespace });
    }
  });

  it('rolls the Deployment when the spec or the environment changes', async function () {
    const list = (await admin('GET', '/v1/mcp/servers')).json() as { servers: Server[] };
    const files = list.servers.find((x) => x.name === 'files') as Server;
    const before = await deploymentOf('files');
    const checksum = (d: V1Deployment) =>
      d.spec?.template.metadata?.annotations?.['aiplane.io/env-checksum'];
    let r = await admin('PUT', `/v1/mcp/servers/${files.id}`, { env: { OTHER: 'value-2' } });
    assert.equal(r.status, 200, r.text);
    let after = before;
    await waitFor('a new environment in the pod template', async () => {
      after = await deploymentOf('files');
      return checksum(after) !== checksum(before);
    });
    assert.notDeepEqual(
      after.spec?.template.spec?.containers[0]?.envFrom,
      before.spec?.template.spec?.containers[0]?.envFrom,
    );
    r = await admin('PUT', `/v1/mcp/servers/${files.id}`, {
      image: 'ghcr.io/acme/files-mcp:1.3.0',
    });
    assert.equal(r.status, 200, r.text);
    await waitFor('the new image', async () => {
      after = await deploymentOf('files');
      return after.spec?.template.spec?.containers[0]?.image === 'ghcr.io/acme/files-mcp:1.3.0';
    });
    assert.ok((after.metadata?.generation ?? 0) > (before.metadata?.generation ?? 0));
  });

  it('runs nothing for a remote server and leaves its status null', async function () {
    const r = await admin('POST', '/v1/mcp/servers', {
      runtime: 'remote',
      name: 'far',
      display_name: 'Far',
      address: 'https://93.184.215.14/mcp',
    });
    assert.equal(r.status, 200, r.text);
    const remote = r.json() as Server;
    // A managed server created afterwards gets its status: the operator has seen both by then.
    const later = await create({ name: 'after-far' });
    await awaitStatus(later, 'a status for the later server', () => true);
    assert.equal(await statusOf(remote), null);
    const deployments = await apps().listNamespacedDeployment({
      namespace: a.namespace,
      labelSelector: 'app.kubernetes.io/instance=far',
    });
    assert.equal(deployments.items.length, 0);
  });

  it('answers 400 mcp_server_image_invalid when the cluster’s admission refuses the workload, recording nothing', async function () {
    const policy = `aiplane-it-images-${a.slug}`;
    const admission = (path: string, body: unknown) =>
      kubeRequest(kubeConfig(), {
        method: 'POST',
        path: `/apis/admissionregistration.k8s.io/v1/${path}`,
        body,
      });
    await admission('validatingadmissionpolicies', {
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['apps'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['deployments'],
            },
          ],
        },
        validations: [
          {
            expression:
              "object.spec.template.spec.containers.all(c, c.image.startsWith('ghcr.io/'))",
            message: 'images must come from ghcr.io',
          },
        ],
      },
    });
    await admission('validatingadmissionpolicybindings', {
      metadata: { name: policy },
      spec: {
        policyName: policy,
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': a.namespace } },
        },
      },
    });
    try {
      let last = '';
      await waitFor('the admission policy to refuse', async () => {
        const r = await admin('POST', '/v1/mcp/servers', {
          runtime: 'managed',
          name: 'quay',
          display_name: 'Quay',
          image: 'quay.io/acme/server:1',
          port: 8080,
          env: { A: 'b' },
        });
        last = r.text;
        if (r.status === 200) {
          await admin('DELETE', `/v1/mcp/servers/${(r.json() as Server).id}`);
          return false;
        }
        return r.status === 400;
      });
      const body = JSON.parse(last) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'mcp_server_image_invalid');
      assert.match(body.error.message, /images must come from ghcr\.io/);
      await assert.rejects(
        kubeRequest(kubeConfig(), {
          method: 'GET',
          path: `/apis/${API_VERSION}/namespaces/${a.namespace}/mcpservers/quay`,
        }),
      );
      const secrets = await core().listNamespacedSecret({
        namespace: a.namespace,
        labelSelector: 'aiplane.io/mcp-server=quay',
      });
      assert.equal(secrets.items.length, 0);
    } finally {
      for (const kind of ['validatingadmissionpolicybindings', 'validatingadmissionpolicies']) {
        await kubeRequest(kubeConfig(), {
          method: 'DELETE',
          path: `/apis/admissionregistration.k8s.io/v1/${kind}/${policy}`,
        }).catch(() => undefined);
      }
    }
  });

  it('removes the Deployment and Service with the server (garbage collection by owner)', async function () {
    const list = (await admin('GET', '/v1/mcp/servers')).json() as { servers: Server[] };
    const files = list.servers.find((x) => x.name === 'files') as Server;
    assert.equal((await admin('DELETE', `/v1/mcp/servers/${files.id}`)).status, 204);
    await waitFor(
      'the Deployment and Service to go',
      async () => {
        const d = await apps()
          .readNamespacedDeployment({ name: 'files', namespace: a.namespace })
          .catch(() => undefined);
        const s = await core()
          .readNamespacedService({ name: 'files', namespace: a.namespace })
          .catch(() => undefined);
        return d === undefined && s === undefined;
      },
      { timeoutMs: 60_000 },
    );
  });
});
