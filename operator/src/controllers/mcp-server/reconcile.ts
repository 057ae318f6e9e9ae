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
import { httpStatusOf, isNotFound, kubeRequest, kubeStatusReason } from '@aiplane/lib';
import {
  patchStatus,
  setCondition,
  type ReconcileContext,
  type ReconcileOutcome,
} from '../../runtime/index.js';
import { FIELD_MANAGER, type McpServerControllerDeps } from './deps.js';
import { availability, nextCheck, planStatus } from './plan.js';

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
  const status = httpStatusOf(err);
  const reason = kubeStatusReason(err);
  const message = `the cluster refused the workload: ${status ? `HTTP ${status}` : 'no answer'}${reason ? ` (${reason})` : ''}${clusterText(err)}`;
  const now = d.now();
  const generation = server.metadata.generation ?? 0;
  let conditions = server.status?.conditions ?? [];
  for (const type of ['Available', 'Ready']) {
    conditions = setCondition(
      conditions,
      { type, status: 'False', reason: 'WorkloadNotApplied', message },
      generation,
      now,
    );
  }
  await writeStatus(d, server, {
    ...server.status,
    ready: false,
    conditions,
    observedGeneration: generation,
  }).catch(() => undefined);
}

/** The apiserver's message of a refusal (its own words, bounded); never a value of ours. */
function clusterText(err: unknown): string {
  const body = (err as { body?: { message?: unknown } } | null)?.body;
  return typeof body?.message === 'string' ? `: ${body.message.slice(0, 300)}` : '';
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

/**
 * One pass over an McpServer: a remote server has nothing to run (status stays null); a
 * managed one gets its Deployment and Service applied, then a handshake when the Deployment
 * is available, then its status written once. Deletion is the garbage collector's: the
 * children carry owner references.
 */
export async function reconcileMcpServer(
  d: McpServerControllerDeps,
  { object: server, logger, signal }: ReconcileContext<McpServer>,
): Promise<ReconcileOutcome> {
  if (!server || server.spec.runtime !== 'managed') return;
  if (metaTime(server.metadata, 'deletionTimestamp')) return;
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

  const url = mcpWorkloadUrl(server);
  const handshake = availability(deployment).available
    ? await d.handshake(d.resolveWorkload(url), signal)
    : undefined;
  const now = d.now();
  const next = planStatus(
    {
      generation: server.metadata.generation ?? 0,
      previous: server.status,
      deployment,
      url,
      handshake,
    },
    now,
  );
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
    { ready: next.ready, handshake: handshake?.ok, written: result.outcome },
    'mcp server reconciled',
  );
  const after = nextCheck(next, now, d.timing);
  return after === undefined ? undefined : { requeueAfter: after };
}
