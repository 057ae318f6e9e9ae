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

/**
 * The id and organizations of a server the watch saw go (`ResourceCache.onGone`); undefined
 * for an object without uid. Pure: `tenants` is the tenant cache's current list.
 */
export function goneServer(
  gone: McpServer,
  tenants: readonly TenantLifecycle[],
): GoneServer | undefined {
  const serverId = gone.metadata?.uid;
  if (!serverId) return undefined;
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
