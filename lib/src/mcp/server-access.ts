import { metaTime, ORGANIZATION_LABEL, type McpServer, type TenantLifecycle } from '@aiplane/crds';
import { hasPermission, isPlatformAdmin, type Principal } from '../auth/principal.js';
import { ApiError } from '../errors/api-error.js';
import type { ResourceCache } from '../kube/resource-cache.js';
import { organizationNamespace } from './organization-namespace.js';

/** One refusal whether a server is missing, another organization's or being deleted (spec: ids cannot be probed). */
export const ACCESS_DENIED_MESSAGE = 'no MCP server with this id is available to you';

export function serverAccessDenied(): ApiError {
  return new ApiError('mcp_server_access_denied', ACCESS_DENIED_MESSAGE);
}

/**
 * Whether `principal` may use `server` acting in `organizationId` (by default the server's own
 * organization label): a member of that organization, or a platform admin, holding
 * can_access_api there; the server lives in that organization's tenant namespace (a label alone
 * is not trusted) and is not being deleted.
 * The API and the gateway both decide with this function.
 */
export function mayUseServer(
  tenants: Pick<ResourceCache<TenantLifecycle>, 'list'>,
  principal: Principal,
  server: McpServer,
  organizationId: string | undefined = server.metadata.labels?.[ORGANIZATION_LABEL],
): boolean {
  if (!organizationId) return false;
  const member = principal.organizations.some((o) => o.id === organizationId);
  if (!member && !isPlatformAdmin(principal)) return false;
  // An API router: can_access_api in the server's organization (spec: core-api.md, Permissions).
  if (!hasPermission(principal, 'can_access_api', organizationId)) return false;
  if (server.metadata.namespace !== organizationNamespace(tenants, organizationId)) return false;
  return metaTime(server.metadata, 'deletionTimestamp') === undefined;
}
