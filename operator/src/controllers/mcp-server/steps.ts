import { createHash } from 'node:crypto';
import type { KubernetesObject, V1Deployment, V1Secret } from '@kubernetes/client-node';
import {
  envChecksum,
  GROUP,
  MCP_SERVER_PLURAL,
  mcpDeployment,
  mcpService,
  mcpWorkloadUrl,
  VERSION,
  type McpServer,
  type McpServerStatus,
} from '@aiplane/crds';
import { isNotFound, kubeRequest, objectKey } from '@aiplane/lib';
import {
  type OwnWrites,
  type PatchStatusResult,
  type StatusKind,
  writeStatus,
} from '../../runtime/index.js';
import { refusalText } from '../refusal.js';
import { FIELD_MANAGER, type McpServerControllerDeps } from './deps.js';
import type { HandshakeResult } from './handshake.js';
import {
  availability,
  handshakeStands,
  nextCheck,
  planNotApplied,
  workloadRevision,
  type HandshakeTarget,
} from './plan.js';

const APPLY = 'application/apply-patch+yaml';

/** The hash of what this controller last applied, stamped on the child. */
export const APPLIED_HASH = 'aiplane.io/applied-hash';

/**
 * How an McpServer's status is written: as the operator's field manager, and only over the
 * version it was computed from (a stale copy gets a 409 and is requeued, never written).
 */
const MCP_SERVER_STATUS: StatusKind = {
  group: GROUP,
  version: VERSION,
  plural: MCP_SERVER_PLURAL,
  namespaced: true,
  precondition: true,
  fieldManager: FIELD_MANAGER,
};

/** The one place an McpServer's status is written. */
export function writeServerStatus(
  d: McpServerControllerDeps,
  server: McpServer,
  next: McpServerStatus,
): Promise<PatchStatusResult<McpServer>> {
  return writeStatus<McpServerStatus, McpServer>(
    d.kc,
    MCP_SERVER_STATUS,
    server,
    next,
    d.statusMemory,
  );
}

/** Server-side apply of an object this controller owns; answers the object as stored. */
async function apply<T>(d: McpServerControllerDeps, path: string, body: unknown): Promise<T> {
  return kubeRequest<T>(d.kc, {
    method: 'PATCH',
    path,
    query: { fieldManager: FIELD_MANAGER, force: true },
    contentType: APPLY,
    body,
  });
}

/**
 * Applies a child unless the watch cache shows it already carries exactly this desired state
 * (the common case on every status event): answers the object as stored.
 */
async function ensure<T extends KubernetesObject>(
  d: McpServerControllerDeps,
  cached: T | undefined,
  path: string,
  desired: T,
  applied: OwnWrites,
): Promise<T> {
  const hash = createHash('sha256').update(JSON.stringify(desired)).digest('hex').slice(0, 32);
  if (cached?.metadata?.annotations?.[APPLIED_HASH] === hash) return cached;
  const stamped = {
    ...desired,
    metadata: {
      ...desired.metadata,
      annotations: { ...desired.metadata?.annotations, [APPLIED_HASH]: hash },
    },
  };
  const key = objectKey(stamped);
  applied.begin(key);
  let stored: T;
  try {
    stored = await apply<T>(d, path, stamped);
  } catch (err) {
    applied.abandon(key);
    throw err;
  }
  applied.remember(stored);
  return stored;
}

/** The checksum of the server's environment; the values never leave this function. */
export async function environmentChecksum(
  d: McpServerControllerDeps,
  server: McpServer,
): Promise<string> {
  const ref = server.spec.envSecretRef?.name;
  if (!ref) return envChecksum({});
  try {
    const secret = await kubeRequest<V1Secret>(d.kc, {
      method: 'GET',
      path: `/api/v1/namespaces/${server.metadata.namespace ?? ''}/secrets/${ref}`,
    });
    return envChecksum(secret.data);
  } catch (err) {
    // Missing: the pod cannot start until it exists; the Deployment reports it.
    if (isNotFound(err)) return 'missing';
    throw err;
  }
}

/** A child the cluster refused (quota, range full, admission): say so in the status. */
export async function reportNotApplied(
  d: McpServerControllerDeps,
  server: McpServer,
  err: unknown,
): Promise<void> {
  const message = `the cluster refused the workload: ${refusalText(err)}`;
  const next = planNotApplied(server.status, server.metadata.generation ?? 0, message, d.now());
  await writeServerStatus(d, server, next).catch(() => undefined);
}

/**
 * The server's Deployment (for this environment checksum) and Service, applied when they
 * differ from what the watch cache holds; answers the Deployment as stored. A refusal is
 * reported in the status and thrown (retried with the queue's backoff).
 */
export async function ensureWorkload(
  d: McpServerControllerDeps,
  server: McpServer,
  checksum: string,
): Promise<V1Deployment> {
  const namespace = server.metadata.namespace ?? '';
  const name = server.metadata.name ?? '';
  try {
    const deployment = await ensure(
      d,
      d.children.deployment(namespace, name),
      `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
      mcpDeployment(server, { envChecksum: checksum }),
      d.children.applied.deployments,
    );
    const service = mcpService(server);
    const serviceName = service.metadata?.name ?? '';
    await ensure(
      d,
      d.children.service(namespace, serviceName),
      `/api/v1/namespaces/${namespace}/services/${serviceName}`,
      service,
      d.children.applied.services,
    );
    return deployment;
  } catch (err) {
    await reportNotApplied(d, server, err);
    throw err;
  }
}

/** The handshake a reconcile goes by. */
export interface HandshakeCheck {
  target: HandshakeTarget;
  result: HandshakeResult;
  /** Set when the remembered result was reused: the time it still stands (ms). */
  reusedForMs?: number;
}

/**
 * The workload's MCP handshake: none while the Deployment is unavailable (and then nothing stays
 * remembered); the remembered one while it stands (see `handshakeStands`); else a new one.
 */
export async function checkHandshake(
  d: McpServerControllerDeps,
  key: string,
  server: McpServer,
  deployment: V1Deployment,
  signal: AbortSignal,
): Promise<HandshakeCheck | undefined> {
  if (!availability(deployment).available) {
    d.handshakes.delete(key);
    return undefined;
  }
  const target: HandshakeTarget = {
    uid: server.metadata.uid ?? '',
    workload: workloadRevision(deployment),
    url: d.resolveWorkload(mcpWorkloadUrl(server)),
  };
  const remembered = d.handshakes.get(key);
  const reusedForMs = handshakeStands(remembered, target, d.now());
  if (remembered && reusedForMs !== undefined) {
    return { target, result: remembered.result, reusedForMs };
  }
  return { target, result: await d.handshake(target.url, signal) };
}

/**
 * When to look again (ms; `undefined`: at the next Deployment event). A new handshake stands
 * until its re-check (or backoff) is due and is remembered that long; a reused one keeps its
 * time.
 */
export function rememberHandshake(
  d: McpServerControllerDeps,
  key: string,
  check: HandshakeCheck | undefined,
  next: McpServerStatus,
  now: Date,
): number | undefined {
  const after = check?.reusedForMs ?? nextCheck(next, now, d.timing);
  if (check && check.reusedForMs === undefined && after !== undefined) {
    d.handshakes.set(key, {
      ...check.target,
      result: check.result,
      at: now.getTime(),
      forMs: after,
    });
  }
  return after;
}

/**
 * Events on readiness transitions written by this pass, for a server that was reported before
 * (a new server is not "NotReady").
 */
export function recordReadiness(
  d: McpServerControllerDeps,
  server: McpServer,
  next: McpServerStatus,
  written: PatchStatusResult<McpServer>,
): void {
  const wasReady = server.status?.ready;
  if (written.outcome !== 'patched' || wasReady === undefined || wasReady === next.ready) return;
  d.events.record(
    server,
    next.ready ? 'Normal' : 'Warning',
    next.ready ? 'Ready' : 'NotReady',
    next.conditions?.find((c) => c.type === (next.ready ? 'Ready' : 'McpHandshake'))?.message ??
      'not ready',
  );
}
