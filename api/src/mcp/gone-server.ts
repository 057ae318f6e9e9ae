import { tenantNamespace, type McpServer, type TenantLifecycle } from '@aiplane/crds';
import { ORGANIZATION_LABEL } from './server-resource.js';

/** A server that no longer exists, and the organizations whose records may name it. */
export interface GoneServer {
  serverId: string;
  /**
   * Its organization label (what the API writes and the gateway reads) and the organization of
   * the tenant whose namespace held it (what the routes scope by), distinct; empty when neither
   * is known.
   */
  organizationIds: string[];
}

/** What the McpServer watch reported. */
export type ServerWatchEvent =
  { type: 'deleted'; server: McpServer } | { type: 'updated'; server: McpServer; old: McpServer };

/**
 * The server a watch event says is gone: the object of a deletion (seen by the watch, or found
 * missing after a relist), or the previous object of an update that replaced it under the same
 * name with another uid (a delete and re-create while the watch was down looks like that).
 * Undefined when nothing is gone. Pure: `tenants` is the tenant cache's current list.
 */
export function goneServer(
  event: ServerWatchEvent,
  tenants: readonly TenantLifecycle[],
): GoneServer | undefined {
  const gone = event.type === 'deleted' ? event.server : event.old;
  const serverId = gone.metadata?.uid;
  if (!serverId) return undefined;
  if (event.type === 'updated' && event.server.metadata?.uid === serverId) return undefined;
  const namespace = gone.metadata?.namespace;
  const candidates = [
    gone.metadata?.labels?.[ORGANIZATION_LABEL],
    ...tenants
      .filter((t) => namespace !== undefined && tenantNamespace(t.spec.slug) === namespace)
      .map((t) => t.status?.organizationId),
  ];
  const organizationIds = [
    ...new Set(candidates.filter((o): o is string => typeof o === 'string' && o !== '')),
  ];
  return { serverId, organizationIds };
}
