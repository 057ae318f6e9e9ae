import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { call, keycloak, tokenFor, type DevUser, type Reply } from './api-helpers.js';
import { kubeConfig } from './harness.js';
import { kcAdmin } from './keycloak-admin.js';
import { adminCall, awaitTenant } from './tenant-helpers.js';
import { uniqueName } from './kube-helpers.js';

export interface Tenant {
  id: string;
  slug: string;
  organizationId: string;
  namespace: string;
}

/** Provisions a tenant through the API (the operator must run) and waits until it is Ready. */
export async function provisionTenant(apiUrl: string, prefix: string): Promise<Tenant> {
  const slug = uniqueName(prefix).slice(0, 40);
  const r = await adminCall(`${apiUrl}/v1/admin/tenants`, {
    method: 'POST',
    body: { slug, identity: { enabled: true } },
  });
  if (r.status !== 202) throw new Error(`tenant ${slug}: ${r.status} ${r.text}`);
  const { id } = r.json() as { id: string };
  const t = await awaitTenant(apiUrl, id, (x) => x.phase === 'Ready', `${slug} to be Ready`);
  return { id, slug, organizationId: t.organization_id ?? '', namespace: `tenant-${slug}` };
}

export async function setMembership(
  organizationId: string,
  user: DevUser,
  member: boolean,
): Promise<void> {
  const userId = keycloak().users[user].id;
  const res = member
    ? await kcAdmin(`/organizations/${organizationId}/members`, { method: 'POST', body: userId })
    : await kcAdmin(`/organizations/${organizationId}/members/${userId}`, { method: 'DELETE' });
  // Adding an existing member answers 409; removing a non-member 404: both are the wanted state.
  if (!res.ok && res.status !== (member ? 409 : 404)) {
    throw new Error(
      `membership of ${user} in ${organizationId}: ${res.status} ${await res.text()}`,
    );
  }
}

/** Calls the API as a dev user acting in an organization (X-Aiplane-Organization). */
/** Calls the API as a dev user acting in an organization. */
export type Call = ReturnType<typeof caller>;

export function caller(apiUrl: string, user: DevUser, organizationId: string) {
  return async (method: string, path: string, body?: unknown): Promise<Reply> =>
    call(`${apiUrl}${path}`, {
      method,
      body,
      headers: {
        // Keycloak leaves the organization claim out for a member of several organizations
        // unless all are asked for.
        authorization: `Bearer ${await tokenFor(user, { scope: 'openid organization:*' })}`,
        'x-aiplane-organization': organizationId,
      },
    });
}

/** Registers a remote MCP server (POST /v1/mcp/servers, which must answer 200); its id. */
export async function registerRemote(
  who: ReturnType<typeof caller>,
  server: { name: string; address: string; display_name?: string; tool_allowlist?: string[] },
): Promise<string> {
  const r = await who('POST', '/v1/mcp/servers', {
    runtime: 'remote',
    display_name: server.name,
    ...server,
  });
  assert.equal(r.status, 200, r.text);
  return (r.json() as { id: string }).id;
}

/** Links a static credential for the caller (PUT …/credential), which must answer 204. */
export async function link(
  who: ReturnType<typeof caller>,
  serverId: string,
  credential: string,
): Promise<void> {
  const r = await who('PUT', `/v1/mcp/servers/${serverId}/credential`, { credential });
  assert.equal(r.status, 204, r.text);
}

export async function secretsOf(namespace: string, server: string) {
  const list = await kubeConfig()
    .makeApiClient(CoreV1Api)
    .listNamespacedSecret({ namespace, labelSelector: `aiplane.io/mcp-server=${server}` });
  return list.items;
}

export function decoded(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

export const randomId = (): string => randomUUID();
