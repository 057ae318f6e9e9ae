import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import type { ResourceCache } from '@aiplane/lib';
import type { Principal } from '@aiplane/lib/auth';
import { mayUseServer, serverAccessDenied } from '@aiplane/lib/mcp';
import { isUuid } from '@aiplane/lib/service';

export interface ServerDirectory {
  servers: Pick<ResourceCache<McpServer>, 'byUid'>;
  tenants: Pick<ResourceCache<TenantLifecycle>, 'list'>;
}

/** The decision for a request's caller (admission and the proxy both ask): made once. */
const decided = new WeakMap<
  Principal,
  { serverId: string; server: Promise<McpServer | undefined> }
>();

/**
 * The server an id names (in any namespace), when the caller may use it: the same decision as
 * the API's (`mayUseServer`), so the two cannot drift apart. Decided once per request (its
 * principal) and server id.
 */
export function usableServer(
  d: ServerDirectory,
  serverId: string,
  principal: Principal,
): Promise<McpServer | undefined> {
  const known = decided.get(principal);
  if (known?.serverId === serverId) return known.server;
  const server = decide(d, serverId, principal);
  decided.set(principal, { serverId, server });
  return server;
}

async function decide(
  d: ServerDirectory,
  serverId: string,
  principal: Principal,
): Promise<McpServer | undefined> {
  const server = isUuid(serverId) ? await d.servers.byUid(serverId) : undefined;
  return server && mayUseServer(d.tenants, principal, server) ? server : undefined;
}

/** Step 2: the server, or 403 mcp_server_access_denied (one answer whatever the reason). */
export async function resolveServer(
  d: ServerDirectory,
  serverId: string,
  principal: Principal,
): Promise<McpServer> {
  const server = await usableServer(d, serverId, principal);
  if (!server) throw serverAccessDenied();
  return server;
}
