import { createHash } from 'node:crypto';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { API_VERSION } from './meta.js';
import { MCP_SERVER_KIND, mcpServerPath, type McpServer } from './mcp-server.js';

/**
 * The workload of a managed McpServer: one Deployment (exactly one replica) and one ClusterIP
 * Service, both owned by the server. Pure: the operator applies it; the API dry-runs the
 * Deployment to learn whether the cluster accepts the image (docs/adr/0009-managed-mcp-runtime.md).
 */

/** Platform defaults for a null (or absent) `resources` value. */
const DEFAULT_RESOURCES = {
  cpuRequest: '100m',
  memoryRequest: '128Mi',
  cpuLimit: '1',
  memoryLimit: '512Mi',
} as const;

/** Platform defaults for a null `security` value: they pass the "restricted" Pod Security Standard. */
const DEFAULT_SECURITY = {
  runAsNonRoot: true,
  readOnlyRootFilesystem: true,
} as const;

const CONTAINER_NAME = 'mcp';
const PORT_NAME = 'mcp';
const SERVER_UID_LABEL = 'aiplane.io/mcp-server-uid';
const ENV_CHECKSUM_ANNOTATION = 'aiplane.io/env-checksum';
const WORKLOAD_NAME = { 'app.kubernetes.io/name': 'mcp-server' };
const WORKLOAD_MANAGED_BY = { 'app.kubernetes.io/managed-by': 'aiplane-operator' };

/**
 * The labels every workload child carries, whichever server owns it: the operator watches its
 * Deployments and Services with a selector built from them.
 */
export const MCP_WORKLOAD_LABELS: Readonly<Record<string, string>> = {
  ...WORKLOAD_NAME,
  ...WORKLOAD_MANAGED_BY,
};

/**
 * The Service name: the server name, which is a DNS label; a Service name must also start with
 * a letter (RFC 1035), so a name starting with a digit gets `mcp-` and a hash instead.
 */
export function mcpServiceName(name: string): string {
  if (/^[a-z]/.test(name)) return name;
  return `mcp-${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

/** `http://<service>.<namespace>.svc:<port><path>`: the in-cluster address (status.url). */
export function mcpWorkloadUrl(server: McpServer): string {
  const { name = '', namespace = '' } = server.metadata;
  return `http://${mcpServiceName(name)}.${namespace}.svc:${server.spec.port ?? 0}${mcpServerPath(server.spec) ?? ''}`;
}

/** The checksum of an environment, stamped on the pod template so a changed env rolls it. */
export function envChecksum(data: Record<string, string> | undefined): string {
  const h = createHash('sha256');
  for (const key of Object.keys(data ?? {}).sort()) h.update(`${key}\0${data?.[key]}\0`);
  return h.digest('hex');
}

function selectorOf(server: McpServer): Record<string, string> {
  return {
    ...WORKLOAD_NAME,
    'app.kubernetes.io/instance': server.metadata.name ?? '',
    [SERVER_UID_LABEL]: server.metadata.uid ?? '',
  };
}

function ownerOf(server: McpServer) {
  return [
    {
      apiVersion: API_VERSION,
      kind: MCP_SERVER_KIND,
      name: server.metadata.name ?? '',
      uid: server.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}

export function mcpDeployment(server: McpServer, opts: { envChecksum: string }): V1Deployment {
  const spec = server.spec;
  const r = spec.resources ?? {};
  const s = spec.security ?? {};
  const pick = (v: string | null | undefined, d: string) => v ?? d;
  const labels = { ...selectorOf(server), ...WORKLOAD_MANAGED_BY };
  const runAsNonRoot = s.runAsNonRoot ?? DEFAULT_SECURITY.runAsNonRoot;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: server.metadata.name ?? '',
      namespace: server.metadata.namespace ?? '',
      labels,
      ownerReferences: ownerOf(server),
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: selectorOf(server) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels, annotations: { [ENV_CHECKSUM_ANNOTATION]: opts.envChecksum } },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: {
            runAsNonRoot,
            ...(s.runAsUser != null ? { runAsUser: s.runAsUser } : {}),
            ...(s.runAsGroup != null ? { runAsGroup: s.runAsGroup, fsGroup: s.runAsGroup } : {}),
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: CONTAINER_NAME,
              image: spec.image ?? '',
              imagePullPolicy: 'IfNotPresent',
              ...(spec.arguments && spec.arguments.length > 0 ? { args: spec.arguments } : {}),
              ports: [{ name: PORT_NAME, containerPort: spec.port ?? 0, protocol: 'TCP' }],
              ...(spec.envSecretRef
                ? { envFrom: [{ secretRef: { name: spec.envSecretRef.name } }] }
                : {}),
              resources: {
                requests: {
                  cpu: pick(r.cpuRequest, DEFAULT_RESOURCES.cpuRequest),
                  memory: pick(r.memoryRequest, DEFAULT_RESOURCES.memoryRequest),
                },
                limits: {
                  cpu: pick(r.cpuLimit, DEFAULT_RESOURCES.cpuLimit),
                  memory: pick(r.memoryLimit, DEFAULT_RESOURCES.memoryLimit),
                },
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                privileged: false,
                runAsNonRoot,
                readOnlyRootFilesystem:
                  s.readOnlyRootFilesystem ?? DEFAULT_SECURITY.readOnlyRootFilesystem,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              readinessProbe: {
                tcpSocket: { port: PORT_NAME },
                periodSeconds: 5,
                failureThreshold: 3,
              },
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          // A writable /tmp, since the root filesystem is read-only by default.
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }],
        },
      },
    },
  };
}

export function mcpService(server: McpServer): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: mcpServiceName(server.metadata.name ?? ''),
      namespace: server.metadata.namespace ?? '',
      labels: { ...selectorOf(server), ...WORKLOAD_MANAGED_BY },
      ownerReferences: ownerOf(server),
    },
    spec: {
      type: 'ClusterIP',
      selector: selectorOf(server),
      ports: [
        { name: PORT_NAME, port: server.spec.port ?? 0, targetPort: PORT_NAME, protocol: 'TCP' },
      ],
    },
  };
}

/**
 * Maps a workload's in-cluster address to the one to dial. Without `host` (in a cluster) it is
 * the identity; with it (LOCAL/TEST ONLY: no cluster DNS, no kubelet) the host is replaced and
 * port and path are kept, so the harness can serve the workload on loopback.
 */
export function workloadResolver(host: string | null | undefined): (url: string) => string {
  if (!host) return (url) => url;
  return (url) => {
    const u = new URL(url);
    u.hostname = host;
    return u.toString();
  };
}
