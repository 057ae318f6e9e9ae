import { mcpWorkloadUrl, metaTime, type McpServer } from '@aiplane/crds';
import type { ReconcileContext, ReconcileOutcome } from '../../runtime/index.js';
import type { McpServerControllerDeps } from './deps.js';
import { planStatus } from './plan.js';
import {
  checkHandshake,
  ensureWorkload,
  environmentChecksum,
  recordReadiness,
  rememberHandshake,
  writeServerStatus,
} from './steps.js';

/**
 * One pass over an McpServer: a remote server has nothing to run (status stays null); a
 * managed one gets its Deployment and Service applied, then a handshake when the Deployment
 * is available (or the last one while it stands: see `handshakeStands`), then its status
 * written once, then events. Deletion is the garbage collector's: the children carry owner
 * references.
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

  const deployment = await ensureWorkload(d, server, await environmentChecksum(d, server));
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
  const after = rememberHandshake(d, key, check, next, now);
  const result = await writeServerStatus(d, server, next);
  recordReadiness(d, server, next, result);
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
