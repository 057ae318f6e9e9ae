import { createHash } from 'node:crypto';
import type { KubernetesObject, V1Deployment, V1Secret } from '@kubernetes/client-node';
import {
  envChecksum,
  GROUP,
  MCP_SERVER_PLURAL,
  mcpDeployment,
  mcpService,
  mcpWorkloadUrl,
  metaTime,
  VERSION,
  type McpServer,
  type McpServerStatus,
} from '@aiplane/crds';
import { isNotFound, kubeRequest } from '@aiplane/lib';
import { patchStatus, type ReconcileContext, type ReconcileOutcome } from '../../runtime/index.js';
import { refusalText } from '../refusal.js';
import { FIELD_MANAGER, type McpServerControllerDeps } from './deps.js';
import type { HandshakeResult } from './handshake.js';
import {
  availability,
  handshakeStands,
  nextCheck,
  planNotApplied,
  planStatus,
  workloadRevision,
  type HandshakeTarget,
} from './plan.js';

const APPLY = 'application/apply-patch+yaml';

/** The hash of what this controller last applied, stamped on the child. */
const APPLIED_HASH = 'aiplane.io/applied-hash';

/**
 * Applies a child unless the watch cache shows it already carries exactly this desired state
 * (the common case on every status event): answers the object as stored.
 */
async function ensure<T extends KubernetesObject>(
  d: McpServerControllerDeps,
  cached: T | undefined,
  path: string,
  desired: T,
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
  return apply<T>(d, path, stamped);
}

/**
 * The one place status is written: as the operator's field manager, and only over the
 * version it was computed from (a stale copy gets a 409 and is requeued, never written).
 */
async function writeStatus(d: McpServerControllerDeps, server: McpServer, next: McpServerStatus) {
  return patchStatus(
    d.kc,
    {
      group: GROUP,
      version: VERSION,
      plural: MCP_SERVER_PLURAL,
      name: server.metadata.name ?? '',
      namespace: server.metadata.namespace ?? '',
      ...(server.metadata.resourceVersion
        ? { resourceVersion: server.metadata.resourceVersion }
        : {}),
    },
    next,
    server.status ?? {},
    { fieldManager: FIELD_MANAGER },
  );
}

/** A child the cluster refused (quota, range full, admission): say so in the status. */
async function reportNotApplied(d: McpServerControllerDeps, server: McpServer, err: unknown) {
  const message = `the cluster refused the workload: ${refusalText(err)}`;
  const next = planNotApplied(server.status, server.metadata.generation ?? 0, message, d.now());
  await writeStatus(d, server, next).catch(() => undefined);
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

/** The checksum of the server's environment; the values never leave this function. */
async function environmentChecksum(d: McpServerControllerDeps, server: McpServer): Promise<string> {
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

/** The handshake a reconcile goes by. */
interface HandshakeCheck {
  target: HandshakeTarget;
  result: HandshakeResult;
  /** Set when the remembered result was reused: the time it still stands (ms). */
  reusedForMs?: number;
}

/**
 * The workload's MCP handshake: none while the Deployment is unavailable (and then nothing stays
 * remembered); the remembered one while it stands (see `handshakeStands`); else a new one.
 */
async function checkHandshake(
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
 * One pass over an McpServer: a remote server has nothing to run (status stays null); a
 * managed one gets its Deployment and Service applied, then a handshake when the Deployment
 * is available (or the last one while it stands: see `handshakeStands`), then its status
 * written once. Deletion is the garbage collector's: the children carry owner references.
 */
export async function reconcileMcpServer(
  d: McpServerControllerDeps,
  { key, object: server, logger, signal }: ReconcileContext<McpServer>,
): Promise<ReconcileOutcome> {
  if (
    !server ||
    server.spec.runtime !== 'managed' ||
    metaTime(server.metadata, 'deletionTimestamp')
  ) {
    d.handshakes.delete(key); // gone, remote, or being deleted: nothing to re-check
    return;
  }
  const namespace = server.metadata.namespace ?? '';
  const name = server.metadata.name ?? '';

  const checksum = await environmentChecksum(d, server);
  let deployment: V1Deployment;
  try {
    deployment = await ensure(
      d,
      d.children.deployment(namespace, name),
      `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
      mcpDeployment(server, { envChecksum: checksum }),
    );
    const service = mcpService(server);
    const serviceName = service.metadata?.name ?? '';
    await ensure(
      d,
      d.children.service(namespace, serviceName),
      `/api/v1/namespaces/${namespace}/services/${serviceName}`,
      service,
    );
  } catch (err) {
    await reportNotApplied(d, server, err);
    throw err; // retried with the queue's backoff
  }

  const check = await checkHandshake(d, key, server, deployment, signal);
  const now = d.now();
  const next = planStatus(
    {
      generation: server.metadata.generation ?? 0,
      previous: server.status,
      deployment,
      url: mcpWorkloadUrl(server),
      handshake: check?.result,
    },
    now,
  );
  // A new handshake stands until its re-check (or backoff) is due; a reused one keeps that time.
  const after = check?.reusedForMs ?? nextCheck(next, now, d.timing);
  if (check && check.reusedForMs === undefined && after !== undefined) {
    d.handshakes.set(key, {
      ...check.target,
      result: check.result,
      at: now.getTime(),
      forMs: after,
    });
  }
  const result = await writeStatus(d, server, next);
  // Events on transitions of a server that was reported before (a new server is not "NotReady").
  const wasReady = server.status?.ready;
  if (result.outcome === 'patched' && wasReady !== undefined && wasReady !== next.ready) {
    d.events.record(
      server,
      next.ready ? 'Normal' : 'Warning',
      next.ready ? 'Ready' : 'NotReady',
      next.conditions?.find((c) => c.type === (next.ready ? 'Ready' : 'McpHandshake'))?.message ??
        'not ready',
    );
  }
  logger.debug(
    {
      ready: next.ready,
      handshake: check?.result.ok,
      handshakeReused: check?.reusedForMs !== undefined,
      written: result.outcome,
    },
    'mcp server reconciled',
  );
  return after === undefined ? undefined : { requeueAfter: after };
}
