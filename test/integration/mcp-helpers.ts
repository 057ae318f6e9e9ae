import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Call } from './fixtures/index.js';
import { kubeConfig } from './harness.js';

/** Registers a remote MCP server (POST /v1/mcp/servers, which must answer 200); its id. */
export async function registerRemote(
  who: Call,
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
export async function link(who: Call, serverId: string, credential: string): Promise<void> {
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
