import type { Request, Response } from 'express';
import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import { organizationOf, principalOf } from '@aiplane/lib/auth';
import type { ResourceCache } from '@aiplane/lib';
import { mayUseServer, organizationNamespace, serverAccessDenied } from '@aiplane/lib/mcp';
import { isUuid } from '@aiplane/lib/service';
import type { McpServerStore } from './server-store.js';

/** Who calls and where: the caller's organization and its namespace (none without a tenant). */
export interface CallerScope {
  userId: string;
  organizationId: string;
  namespace: string | undefined;
}

export function callerScope(
  req: Request,
  res: Response,
  tenants: ResourceCache<TenantLifecycle>,
): CallerScope {
  const principal = principalOf(res);
  const organizationId = organizationOf(req, principal);
  return {
    userId: principal.userId,
    organizationId,
    namespace: organizationNamespace(tenants, organizationId),
  };
}

/**
 * The server named by the `server_id` path parameter, if it is one of the caller's
 * organization; otherwise 403 mcp_server_access_denied with the same body whether it is
 * missing, another organization's, or not a UUID (spec: identifiers cannot be probed).
 */
export async function findCallerServer(
  req: Request,
  res: Response,
  deps: ServerLookup,
): Promise<CallerScope & { server: McpServer; id: string }> {
  const principal = principalOf(res);
  const scope = callerScope(req, res, deps.tenants);
  const id = serverIdParam(req) ?? '';
  const server = await findInOrganization(deps, scope.organizationId, id);
  // The same decision as the gateway's, for the organization the caller acts in.
  if (!server || !mayUseServer(deps.tenants, principal, server, scope.organizationId)) {
    throw serverAccessDenied();
  }
  return { ...scope, server, id };
}

export interface ServerLookup {
  servers: McpServerStore;
  tenants: ResourceCache<TenantLifecycle>;
}

/** The `server_id` path parameter when it is a UUID. */
export function serverIdParam(req: Request): string | undefined {
  const param = req.params.server_id;
  return typeof param === 'string' && isUuid(param) ? param : undefined;
}

/** A live server of the organization by id (undefined: no tenant, not a UUID, or none). */
export async function findInOrganization(
  deps: ServerLookup,
  organizationId: string,
  id: string,
): Promise<McpServer | undefined> {
  const namespace = organizationNamespace(deps.tenants, organizationId);
  return namespace !== undefined && isUuid(id) ? deps.servers.find(namespace, id) : undefined;
}
