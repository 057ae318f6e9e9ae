import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type ApiConfig, loadApiConfig } from '@aiplane/api';
import { loadGatewayConfig } from '@aiplane/gateway';
import { kubeRequest } from '@aiplane/lib';
import { loadOperatorConfig } from '@aiplane/operator';
import { repoRoot } from '@aiplane/hack';
import { kubeConfig } from './harness.js';
import {
  CHART,
  createReleaseSecrets,
  FULL_VALUES,
  helm,
  type Manifest,
  manifests,
  refusal,
  S3_VALUES,
} from './helm-helpers.js';
import { kubectl } from './kube-helpers.js';

const NAMESPACE = 'aiplane-chart';
const RELEASE = 'it-chart';
const CRDS = ['tenantlifecycles.aiplane.io', 'mcpservers.aiplane.io'];

/** Each values file and the Secrets (name → key → value) its release reads. */
const VALUES: Record<string, { args: string[]; secrets: Record<string, Record<string, string>> }> =
  {
    default: {
      args: [],
      secrets: {
        'aiplane-database': { url: 'postgres://aiplane:x@postgres:5432/aiplane' },
        'aiplane-credential-keys': { keys: `k1:${Buffer.alloc(32, 1).toString('base64')}` },
        'aiplane-identity-provider': { 'api-client-secret': 'a', 'operator-client-secret': 'o' },
      },
    },
    full: {
      args: ['-f', FULL_VALUES],
      secrets: {
        'platform-database': { 'postgres-url': 'postgres://aiplane:x@db.example.com:5432/aiplane' },
        'platform-credential-keys': {
          keyring: `k2:${Buffer.alloc(32, 2).toString('base64')},k1:${Buffer.alloc(32, 1).toString('base64')}`,
        },
        'platform-idp': { api: 'a', operator: 'o' },
        'platform-tenant-db': { admin: 'postgres://admin:x@tenants.example.com:5432/postgres' },
      },
    },
    // The file store in an S3-compatible bucket (docs/adr/0038).
    s3: {
      args: ['-f', S3_VALUES],
      secrets: {
        'aiplane-database': { url: 'postgres://aiplane:x@postgres:5432/aiplane' },
        'aiplane-credential-keys': { keys: `k1:${Buffer.alloc(32, 1).toString('base64')}` },
        'aiplane-identity-provider': { 'api-client-secret': 'a', 'operator-client-secret': 'o' },
        'platform-file-store': { 'access-key-id': 'AKIACHART', 'secret-access-key': 's3-secret' },
      },
    },
  };

const render = async (args: string[]) =>
  manifests((await helm('template', 'aiplane', CHART, '--namespace', NAMESPACE, ...args)).stdout);

const deployment = (objects: Manifest[], component: string) => {
  const d = objects.find(
    (o) =>
      o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === component,
  );
  assert.ok(d, `no ${component} Deployment`);
  return d as Manifest & { spec: { template: { spec: PodSpec } } };
};

/** The port of the gateway's public Service. */
const gatewayService = (objects: Manifest[]) => {
  const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'aiplane-gateway') as
    (Manifest & { spec: { ports: { port: number }[] } }) | undefined;
  assert.ok(svc, 'no gateway Service');
  return svc.spec.ports[0]!.port;
};

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string };
    fieldRef?: { fieldPath: string };
    configMapKeyRef?: { optional?: boolean };
  };
}
interface PodSpec {
  serviceAccountName: string;
  enableServiceLinks?: boolean;
  containers: { env: EnvVar[]; ports: { containerPort: number }[]; securityContext?: unknown }[];
}

/** The environment a container would see, Secret references resolved (a missing one fails). */
function containerEnv(
  spec: PodSpec,
  secrets: Record<string, Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const v of spec.containers[0]!.env) {
    const ref = v.valueFrom?.secretKeyRef;
    if (ref) {
      const value = secrets[ref.name]?.[ref.key];
      assert.ok(value !== undefined, `${v.name} reads Secret ${ref.name} key ${ref.key}`);
      env[v.name] = value;
    } else if (v.valueFrom?.fieldRef) {
      env[v.name] = v.valueFrom.fieldRef.fieldPath === 'metadata.name' ? 'pod-0' : NAMESPACE;
    } else if (v.value !== undefined) env[v.name] = v.value;
    else assert.ok(v.valueFrom?.configMapKeyRef?.optional, `${v.name} has a value`);
  }
  return env;
}

async function serverSideDryRun(objects: Manifest[], yaml: string): Promise<void> {
  const applied = await kubectl(
    [
      'apply',
      '--server-side',
      '--dry-run=server',
      '--force-conflicts',
      '--field-manager=chart-test',
      '-f',
      '-',
    ],
    yaml,
  );
  const lines = applied.trim().split('\n');
  assert.equal(lines.length, objects.length, applied);
  for (const line of lines) assert.match(line, /serverside-applied \(server dry run\)$/);
}

describe('Helm chart (helm built from the Go module proxy, the local apiserver)', function () {
  before(async function () {
    await kubectl(['create', 'namespace', NAMESPACE]).catch(() => undefined);
    // The full values enable ServiceMonitors: a stand-in CRD with upstream's field names.
    await kubectl([
      'apply',
      '--server-side',
      '-f',
      join(repoRoot, 'test', 'integration', 'fixtures', 'servicemonitor-crd.yaml'),
    ]);
  });

  it('mounts the model store and the file store where the API writes: an emptyDir by default, the chart’s PVC when persistence is on', async function () {
    type Volume = {
      name: string;
      emptyDir?: object;
      persistentVolumeClaim?: { claimName: string };
    };
    type Spec = PodSpec & {
      volumes: Volume[];
      securityContext: { fsGroup?: number };
      containers: { volumeMounts: { name: string; mountPath: string }[] }[];
    };
    // Each store: its volume, where the API's configuration says it writes, the full claim.
    const stores = [
      { volume: 'model-store', dir: (c: ApiConfig) => c.modelStore.dir, size: '2Ti' },
      { volume: 'file-store', dir: (c: ApiConfig) => c.files.dir, size: '500Gi' },
    ];
    for (const [label, expected] of [
      ['default', { persistent: false, fsGroup: undefined }],
      ['full', { persistent: true, fsGroup: 65532 }],
    ] as const) {
      const objects = await render(VALUES[label]!.args);
      const spec = deployment(objects, 'api').spec.template.spec as unknown as Spec;
      const config = loadApiConfig(containerEnv(spec, VALUES[label]!.secrets));
      for (const store of stores) {
        const claimName = expected.persistent ? `aiplane-${store.volume}` : undefined;
        const mount = spec.containers[0]!.volumeMounts.find((m) => m.name === store.volume);
        assert.equal(mount?.mountPath, store.dir(config), `${label} ${store.volume}`);
        const volume = spec.volumes.find((v) => v.name === store.volume);
        assert.equal(volume?.persistentVolumeClaim?.claimName, claimName, label);
        if (claimName === undefined) assert.deepEqual(volume?.emptyDir, {}, label);
        // Neither store is in the gateway's or the operator's pods.
        for (const component of ['gateway', 'operator']) {
          const other = deployment(objects, component).spec.template.spec as unknown as Spec;
          assert.ok(!other.volumes.some((v) => v.name === store.volume), component);
        }
      }
      assert.equal(spec.securityContext.fsGroup, expected.fsGroup, label);
      const claims = objects.filter((o) => o.kind === 'PersistentVolumeClaim');
      assert.deepEqual(
        claims.map((c) => c.metadata.name).sort(),
        expected.persistent ? stores.map((s) => `aiplane-${s.volume}`).sort() : [],
        label,
      );
    }
    const full = await render(VALUES.full!.args);
    for (const store of stores) {
      const claim = full.find(
        (o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === `aiplane-${store.volume}`,
      ) as unknown as {
        spec: {
          accessModes: string[];
          storageClassName: string;
          resources: { requests: { storage: string } };
        };
      };
      assert.deepEqual(claim.spec.accessModes, ['ReadWriteMany']);
      assert.equal(claim.spec.storageClassName, 'shared-nfs');
      assert.equal(claim.spec.resources.requests.storage, store.size);
    }
  });

  it('with the S3 store: no file store volume nor claim; the API reads the bucket and its keys from the Secret', async function () {
    const objects = await render(VALUES.s3!.args);
    const spec = deployment(objects, 'api').spec.template.spec as unknown as PodSpec & {
      volumes: { name: string }[];
      containers: { volumeMounts: { name: string }[] }[];
    };
    assert.ok(!spec.volumes.some((v) => v.name === 'file-store'));
    assert.ok(!spec.containers[0]!.volumeMounts.some((m) => m.name === 'file-store'));
    assert.ok(
      !objects.some(
        (o) => o.kind === 'PersistentVolumeClaim' && /file-store/.test(o.metadata.name),
      ),
    );
    const config = loadApiConfig(containerEnv(spec, VALUES.s3!.secrets));
    assert.deepEqual(config.files.s3, {
      bucket: 'aiplane-files',
      prefix: 'prod/',
      region: 'eu-central-1',
      endpoint: 'https://s3.storage.example.com',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIACHART', secretAccessKey: 's3-secret' },
    });
    // No key is a value: both come from the Secret.
    const env = spec.containers[0]!.env.filter((v) =>
      /^AIPLANE_FILES_S3_(ACCESS|SECRET)/.test(v.name),
    );
    assert.deepEqual(
      env.map((v) => [v.name, v.value, v.valueFrom?.secretKeyRef?.name]),
      [
        ['AIPLANE_FILES_S3_ACCESS_KEY_ID', undefined, 'platform-file-store'],
        ['AIPLANE_FILES_S3_SECRET_ACCESS_KEY', undefined, 'platform-file-store'],
      ],
    );
  });

  for (const [label, { args }] of Object.entries(VALUES)) {
    it(`passes helm lint --strict with ${label} values`, async function () {
      const { stdout } = await helm('lint', CHART, '--strict', ...args);
      assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    });

    it(`renders ${label} values into manifests that pass a server-side dry-run (strict field validation)`, async function () {
      const { stdout } = await helm(
        'template',
        'aiplane',
        CHART,
        '--namespace',
        NAMESPACE,
        ...args,
      );
      await serverSideDryRun(manifests(stdout), stdout);
    });

    it(`gives each component, with ${label} values, a configuration its process accepts`, async function () {
      const objects = await render(args);
      const { secrets } = VALUES[label]!;
      const api = deployment(objects, 'api').spec.template.spec;
      const apiConfig = loadApiConfig(containerEnv(api, secrets));
      const host = label === 'full' ? '::' : '0.0.0.0';
      assert.equal(apiConfig.host, host);
      assert.equal(apiConfig.port, api.containers[0]!.ports[0]!.containerPort);
      assert.equal(apiConfig.metricsPort, api.containers[0]!.ports[1]!.containerPort);
      // Agents' tools go through this release's gateway Service.
      assert.equal(
        apiConfig.inference.gatewayUrl,
        `http://aiplane-gateway.${NAMESPACE}.svc:${gatewayService(objects)}`,
      );
      const gateway = deployment(objects, 'gateway').spec.template.spec;
      const gatewayConfig = loadGatewayConfig(containerEnv(gateway, secrets));
      assert.equal(gatewayConfig.gateway.host, host);
      assert.equal(gatewayConfig.gateway.port, gateway.containers[0]!.ports[0]!.containerPort);
      assert.equal(
        gatewayConfig.gateway.metricsPort,
        gateway.containers[0]!.ports[1]!.containerPort,
      );
      const operator = deployment(objects, 'operator').spec.template.spec;
      const operatorConfig = loadOperatorConfig(containerEnv(operator, secrets));
      assert.equal(operatorConfig.health.host, host);
      // Service links off: a Service named <release>-api would otherwise give every pod
      // AIPLANE_API_PORT=tcp://…, which the gateway's configuration reads and refuses.
      for (const spec of [api, gateway, operator]) assert.equal(spec.enableServiceLinks, false);
      assert.equal(operatorConfig.health.port, operator.containers[0]!.ports[0]!.containerPort);
      assert.ok(operatorConfig.leaderElection.enabled, 'leader election is on');
      assert.equal(operatorConfig.leaderElection.namespace, NAMESPACE);
      assert.equal(operatorConfig.leaderElection.name, 'aiplane-operator');
      assert.ok(operatorConfig.tenants.identity, 'the operator reaches the identity provider');
      // The chart's tenant ClusterRoles, bound per tenant namespace to the API and the operator.
      assert.deepEqual(operatorConfig.tenants.roleBindings, [
        {
          clusterRole: 'aiplane-api-tenant',
          serviceAccount: { namespace: NAMESPACE, name: 'aiplane-api' },
        },
        {
          clusterRole: 'aiplane-operator-tenant',
          serviceAccount: { namespace: NAMESPACE, name: 'aiplane-operator' },
        },
      ]);
      const isolation = operatorConfig.tenants.networkIsolation;
      assert.equal(isolation.enabled, true);
      if (label !== 'full') {
        // Default values (s3 changes only the file store): this release's pods (API, gateway,
        // operator: release "aiplane") in its namespace.
        assert.deepEqual(isolation.ingressFrom, {
          namespaceLabels: { 'kubernetes.io/metadata.name': NAMESPACE },
          podLabels: {
            'app.kubernetes.io/instance': 'aiplane',
            'app.kubernetes.io/name': 'aiplane',
          },
        });
        assert.deepEqual(isolation.dns.podLabels, { 'k8s-app': 'kube-dns' });
        assert.deepEqual(isolation.clusterCidrs, [
          '10.0.0.0/8',
          '172.16.0.0/12',
          '192.168.0.0/16',
          '100.64.0.0/10',
          'fc00::/7',
        ]);
        assert.deepEqual(isolation.extraEgressCidrs, []);
      } else {
        assert.deepEqual(isolation.ingressFrom, {
          namespaceLabels: { team: 'platform' },
          podLabels: { 'app.kubernetes.io/part-of': 'aiplane' },
        });
        assert.deepEqual(isolation.dns, {
          namespaceLabels: { 'kubernetes.io/metadata.name': 'dns' },
          podLabels: { 'k8s-app': 'coredns' },
        });
        assert.deepEqual(isolation.clusterCidrs, [
          '10.244.0.0/16',
          '10.96.0.0/12',
          'fd00:10:96::/108',
        ]);
        assert.deepEqual(isolation.extraEgressCidrs, ['169.254.20.10/32']);
      }
      if (label !== 'full') {
        assert.equal(apiConfig.oidc.issuer, 'http://keycloak:8080/realms/aiplane');
        assert.equal(apiConfig.mcp.gatewayPublicUrl, null);
        assert.equal(apiConfig.mcp.oauthRedirectUrl, null);
        assert.equal(operatorConfig.tenants.database, undefined);
        assert.deepEqual(gatewayConfig.gateway.upstream, {
          connectTimeoutMs: 10_000,
          headersTimeoutMs: 60_000,
          idleTimeoutMs: 300_000,
          maxBufferedBytes: 8 * 1024 * 1024,
        });
        // The chart's defaults are the gateway's own.
        assert.deepEqual(gatewayConfig.gatewayLimits, {
          requestsPerUser: 32,
          requestsPerOrganization: 256,
          sessionsPerUser: 64,
          sessionsPerOrganization: 1024,
          sessionIdleSeconds: 1800,
        });
      } else {
        assert.equal(apiConfig.oidc.issuer, 'https://id.example.com/realms/platform');
        assert.equal(apiConfig.identityProvider.url, 'http://keycloak.identity.svc:8080');
        assert.equal(apiConfig.mcp.gatewayPublicUrl, 'https://mcp.example.com');
        assert.equal(
          apiConfig.mcp.oauthRedirectUrl,
          'https://aiplane.example.com/portal/mcp/oauth/return',
        );
        assert.equal(apiConfig.portal.clientId, 'platform-portal');
        assert.equal(apiConfig.mcp.credentialKeys.activeKid, 'k2');
        assert.equal(operatorConfig.tenants.database?.host, 'tenants-db.databases.svc');
        assert.equal(operatorConfig.tenants.database?.port, 6432);
        assert.equal(operatorConfig.leaderElection.leaseDurationSeconds, 30);
        assert.equal(operatorConfig.mcp.recheckMs, 60_000);
        assert.deepEqual(gatewayConfig.gateway.upstream, {
          connectTimeoutMs: 5000,
          headersTimeoutMs: 120_000,
          idleTimeoutMs: 600_000,
          maxBufferedBytes: 16 * 1024 * 1024,
        });
        assert.deepEqual(gatewayConfig.gatewayLimits, {
          requestsPerUser: 8,
          requestsPerOrganization: 64,
          sessionsPerUser: 16,
          sessionsPerOrganization: 128,
          sessionIdleSeconds: 600,
        });
      }
    });

    it(`runs every pod, with ${label} values, under the restricted Pod Security Standard`, async function () {
      const ns = 'aiplane-chart-restricted';
      await kubectl(['create', 'namespace', ns]).catch(() => undefined);
      await kubectl([
        'label',
        '--overwrite',
        'namespace',
        ns,
        'pod-security.kubernetes.io/enforce=restricted',
      ]);
      // Admission wants the pod's ServiceAccount to exist. The namespace's `default` one comes
      // from the controller-manager some moments after the namespace does, so use our own.
      await kubectl(['-n', ns, 'create', 'serviceaccount', 'pss']).catch(() => undefined);
      const createPod = (spec: PodSpec) =>
        kubeRequest(kubeConfig(), {
          method: 'POST',
          path: `/api/v1/namespaces/${ns}/pods?dryRun=All`,
          body: {
            metadata: { generateName: 'pss-' },
            spec: { ...spec, serviceAccountName: 'pss' },
          },
        });
      for (const c of ['api', 'gateway', 'operator']) {
        await createPod(deployment(await render(args), c).spec.template.spec);
      }
      // The namespace does enforce: the same pod without its container securityContext is refused.
      const spec = deployment(await render(args), 'api').spec.template.spec;
      delete spec.containers[0]!.securityContext;
      await assert.rejects(createPod(spec), (err: { body?: unknown }) => {
        const body = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as {
          message?: string;
        };
        assert.match(body.message ?? '', /violates PodSecurity "restricted:latest"/);
        return true;
      });
    });
  }

  it('renders the components, their RBAC, the CRDs and PodDisruptionBudgets by default', async function () {
    const names = (await render([])).map((o) => `${o.kind}/${o.metadata.name}`).sort();
    const each = (kind: string) =>
      ['api', 'gateway', 'operator'].map((c) => `${kind}/aiplane-${c}`);
    assert.deepEqual(
      names,
      [
        ...each('ClusterRole'),
        // Bound per tenant namespace by the operator, not by the chart.
        'ClusterRole/aiplane-api-tenant',
        'ClusterRole/aiplane-operator-tenant',
        ...each('ClusterRoleBinding'),
        ...CRDS.map((c) => `CustomResourceDefinition/${c}`).reverse(),
        ...each('Deployment'),
        ...each('PodDisruptionBudget'),
        'Role/aiplane-operator',
        'RoleBinding/aiplane-operator',
        ...each('Service'),
        'Service/aiplane-api-metrics',
        'Service/aiplane-gateway-metrics',
        ...each('ServiceAccount'),
      ].sort(),
    );
  });

  it('leaves out what values turn off, and keeps the CRDs on uninstall only with crds.keep', async function () {
    const off = await render([
      '--set',
      'crds.enabled=false,rbac.create=false,serviceAccount.create=false',
      '--set',
      'api.podDisruptionBudget.enabled=false,gateway.podDisruptionBudget.enabled=false,operator.podDisruptionBudget.enabled=false',
    ]);
    assert.deepEqual([...new Set(off.map((o) => o.kind))].sort(), ['Deployment', 'Service']);
    assert.ok(
      off.every(
        (o) =>
          o.kind !== 'Deployment' || JSON.stringify(o).includes('"serviceAccountName":"default"'),
      ),
    );
    const kept = (await render([])).filter((o) => o.kind === 'CustomResourceDefinition');
    assert.ok(kept.every((o) => JSON.stringify(o).includes('"helm.sh/resource-policy":"keep"')));
    const notKept = (await render(['--set', 'crds.keep=false'])).filter(
      (o) => o.kind === 'CustomResourceDefinition',
    );
    assert.ok(
      notKept.length === 2 && notKept.every((o) => !JSON.stringify(o).includes('resource-policy')),
    );
    const monitors = (await render(['--set', 'metrics.serviceMonitor.enabled=true'])).filter(
      (o) => o.kind === 'ServiceMonitor',
    );
    assert.deepEqual(monitors.map((m) => m.metadata.name).sort(), [
      'aiplane-api',
      'aiplane-gateway',
      'aiplane-operator',
    ]);
  });

  it('renders as a subchart (Helm adds `global`)', async function () {
    const objects = await render(['--set', 'global.imageRegistry=registry.example.com']);
    assert.ok(objects.some((o) => o.kind === 'Deployment'));
  });

  it('pins the image by digest when one is given, else by tag or the appVersion', async function () {
    const image = async (args: string[]) =>
      JSON.stringify(deployment(await render(args), 'api')).match(/"image":"([^"]+)"/)?.[1];
    assert.equal(await image([]), 'ghcr.io/aiplane/aiplane:0.1.0');
    assert.equal(await image(['--set', 'image.tag=2.0.0']), 'ghcr.io/aiplane/aiplane:2.0.0');
    assert.equal(await image(['--set', 'image.tag=20260101']), 'ghcr.io/aiplane/aiplane:20260101');
    const digest = `sha256:${'a'.repeat(64)}`;
    assert.equal(
      await image(['--set', `image.tag=2.0.0,image.digest=${digest}`]),
      `ghcr.io/aiplane/aiplane@${digest}`,
    );
  });

  const bad: [string, string[], RegExp][] = [
    [
      'an unknown key',
      ['--set', 'replicas=2'],
      /at '': additional properties 'replicas' not allowed/,
    ],
    [
      'an unknown nested key',
      ['--set', 'api.replica=2'],
      /at '\/api': additional properties 'replica' not allowed/,
    ],
    [
      'negative replicas',
      ['--set', 'operator.replicas=-1'],
      /at '\/operator\/replicas': minimum: got -1, want 1/,
    ],
    [
      'a wrong type',
      ['--set', 'rbac.create=maybe'],
      /at '\/rbac\/create': got string, want boolean/,
    ],
    [
      'no database Secret',
      ['--set', 'database.existingSecret='],
      /at '\/database\/existingSecret': minLength: got 0, want 1/,
    ],
    [
      'an identity provider that is not http(s)',
      ['--set', 'identityProvider.url=ftp://idp'],
      /at '\/identityProvider\/url': 'ftp:\/\/idp' does not match pattern/,
    ],
    [
      'a malformed digest',
      ['--set', 'image.digest=sha256:abc'],
      /at '\/image\/digest': 'sha256:abc' does not match pattern/,
    ],
    [
      'the S3 file store without a bucket',
      ['--set', 'api.fileStore.kind=s3'],
      /at '\/api\/fileStore\/s3\/bucket': minLength: got 0, want 3/,
    ],
    [
      'the S3 file store with a limit past one CopyObject',
      ['-f', S3_VALUES, '--set', 'api.fileStore.maxBytes=6000000000'],
      /at '\/api\/fileStore\/maxBytes': maximum/,
    ],
    [
      'an unknown log level',
      ['--set', 'logLevel=verbose'],
      /at '\/logLevel': value must be one of/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`refuses ${what} at helm install and helm template, with the schema's message`, async function () {
      const install = helm('install', 'it-chart-bad', CHART, '--namespace', NAMESPACE, ...args);
      assert.match(await refusal(install), message);
      assert.match(await refusal(helm('template', 'aiplane', CHART, ...args)), message);
      await assert.rejects(helm('status', 'it-chart-bad', '--namespace', NAMESPACE), /not found/);
    });
  }

  describe('helm install into the local control plane', function () {
    before(async function () {
      // The harness installed the CRDs; let this release adopt them (Helm's ownership metadata)
      // so the install also proves the chart's CRDs are accepted and served.
      for (const crd of CRDS) {
        await kubectl([
          'annotate',
          '--overwrite',
          'crd',
          crd,
          `meta.helm.sh/release-name=${RELEASE}`,
          `meta.helm.sh/release-namespace=${NAMESPACE}`,
        ]);
        await kubectl(['label', '--overwrite', 'crd', crd, 'app.kubernetes.io/managed-by=Helm']);
      }
    });
    after(async function () {
      await helm('uninstall', RELEASE, '--namespace', NAMESPACE).catch(() => undefined);
      for (const crd of CRDS) {
        await kubectl([
          'annotate',
          'crd',
          crd,
          'meta.helm.sh/release-name-',
          'meta.helm.sh/release-namespace-',
          'helm.sh/resource-policy-',
        ]).catch(() => undefined);
        await kubectl(['label', 'crd', crd, 'app.kubernetes.io/managed-by-']).catch(
          () => undefined,
        );
      }
    });

    it('fails naming the missing Secret, then the missing key, before creating anything', async function () {
      const install = () => helm('install', RELEASE, CHART, '--namespace', NAMESPACE);
      assert.match(
        await refusal(install()),
        /database\.existingSecret: Secret "aiplane-database" not found in namespace "aiplane-chart"/,
      );
      await kubectl([
        '-n',
        NAMESPACE,
        'create',
        'secret',
        'generic',
        'aiplane-database',
        '--from-literal=postgres=x',
      ]);
      assert.match(
        await refusal(install()),
        /database\.existingSecret: Secret "aiplane-database" has no key "url"/,
      );
      await kubectl(['-n', NAMESPACE, 'delete', 'secret', 'aiplane-database']);
      // Only what the chart would have created counts: kube-controller-manager adds the
      // namespace's default ServiceAccount on its own schedule.
      assert.equal(
        (
          await kubectl([
            'get',
            'deploy,sa,svc,pdb,role,rolebinding,clusterrole,clusterrolebinding',
            '--all-namespaces',
            '-l',
            `app.kubernetes.io/instance=${RELEASE}`,
            '-o',
            'name',
          ])
        ).trim(),
        '',
      );
      assert.equal((await helm('list', '--all', '--namespace', NAMESPACE, '-q')).stdout.trim(), '');
    });

    it('installs: the objects are accepted and the CRDs are served', async function () {
      await createReleaseSecrets(NAMESPACE);
      const { stdout } = await helm('install', RELEASE, CHART, '--namespace', NAMESPACE);
      assert.match(stdout, /STATUS: deployed/);
      assert.match(stdout, /kubectl -n aiplane-chart port-forward svc\/it-chart-api 8080:8080/);
      const objects = (
        await kubectl(['-n', NAMESPACE, 'get', 'deploy,svc,sa,pdb,role,rolebinding', '-o', 'name'])
      )
        .trim()
        .split('\n')
        .sort();
      for (const c of ['api', 'gateway', 'operator']) {
        for (const kind of [
          'deployment.apps',
          'service',
          'serviceaccount',
          'poddisruptionbudget.policy',
        ]) {
          assert.ok(
            objects.includes(`${kind}/${RELEASE}-${c}`),
            `${kind}/${RELEASE}-${c} in ${objects.join(' ')}`,
          );
        }
      }
      for (const crd of CRDS) {
        const established = await kubectl([
          'get',
          'crd',
          crd,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Established")].status} {.metadata.annotations.meta\\.helm\\.sh/release-name}',
        ]);
        assert.equal(established, `True ${RELEASE}`);
      }
      await kubectl(['get', 'tenantlifecycles,mcpservers', '--all-namespaces']);
    });

    it('uninstalls: the release’s objects go, the CRDs stay (crds.keep)', async function () {
      await helm('uninstall', RELEASE, '--namespace', NAMESPACE, '--wait', '--timeout', '60s');
      assert.doesNotMatch(
        await kubectl(['get', 'clusterroles,clusterrolebindings', '-o', 'name']),
        /it-chart-/,
      );
      assert.equal(
        (await kubectl(['-n', NAMESPACE, 'get', 'deploy,svc,pdb,role', '-o', 'name'])).trim(),
        '',
      );
      for (const crd of CRDS) await kubectl(['get', 'crd', crd]);
    });
  });
});
