import {
  GROUP,
  MCP_SERVER_PLURAL,
  ORGANIZATION_LABEL,
  VERSION,
  type McpServer,
  type TenantLifecycle,
} from '@aiplane/crds';
import { isNotFound, kubeRequest, listAll } from '@aiplane/lib';
import { namespaceOf, type TenantControllerDeps } from './deps.js';

/**
 * Keeps the organization label of every McpServer in the tenant's namespace equal to the
 * tenant's current organization (the gateway and the API read it): after a re-created
 * organization (new id) it relabels them in the same pass (docs/adr/0015). The namespace, not
 * the label, says whose a server is, so every server there gets the tenant's id. Answers how many
 * it changed; idempotent.
 */
export async function relabelServers(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
  organizationId: string,
): Promise<number> {
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${namespaceOf(tl.spec.slug)}/${MCP_SERVER_PLURAL}`;
  const { items } = await listAll<McpServer>(d.kc, { path });
  let changed = 0;
  for (const server of items) {
    if (server.metadata.labels?.[ORGANIZATION_LABEL] === organizationId) continue;
    // A merge patch of one label: the value depends only on the tenant, so a concurrent write
    // of the server needs no resourceVersion guard.
    try {
      await kubeRequest(d.kc, {
        method: 'PATCH',
        path: `${path}/${server.metadata.name ?? ''}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { labels: { [ORGANIZATION_LABEL]: organizationId } } },
      });
      changed++;
    } catch (err) {
      if (!isNotFound(err)) throw err; // deleted meanwhile: nothing to label
    }
  }
  return changed;
}
