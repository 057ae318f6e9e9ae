import { type Static, Type } from '@sinclair/typebox';
import { metaTime, mcpServerPath, type McpServer } from '@aiplane/crds';
import { Nullable } from '@aiplane/lib/service';
import { ConditionSchema } from '../tenants/record.js';
import { envNamesOf, ORGANIZATION_LABEL, updatedAtOf } from './server-resource.js';

/** One condition of a managed server's status, as the API answers it. */
export type ServerCondition = Static<typeof ConditionSchema>;

const ServerStatusSchema = Type.Object(
  {
    ready: Type.Boolean(),
    replicas: Type.Integer(),
    ready_replicas: Type.Integer(),
    url: Nullable(Type.String()),
    conditions: Type.Array(ConditionSchema),
  },
  { title: 'McpServerStatus' },
);
export type ServerStatusRecord = Static<typeof ServerStatusSchema>;

const str = () => Nullable(Type.String());
const bool = () => Nullable(Type.Boolean());
const int = () => Nullable(Type.Integer());

/** The MCP Server response (spec: "MCP Server response"). */
export const ServerRecordSchema = Type.Object(
  {
    id: Type.String(),
    organization_id: Type.String(),
    name: Type.String(),
    display_name: Type.String(),
    description: str(),
    runtime: Type.Union([Type.Literal('managed'), Type.Literal('remote')]),
    tool_allowlist: Type.Array(Type.String()),
    address: str(),
    namespace: str(),
    image: str(),
    port: int(),
    path: str(),
    arguments: Type.Array(Type.String()),
    env: Type.Array(Type.Object({ name: Type.String(), configured: Type.Literal(true) })),
    resources: Type.Object({
      cpu_request: str(),
      memory_request: str(),
      cpu_limit: str(),
      memory_limit: str(),
    }),
    security: Type.Object({
      run_as_non_root: bool(),
      run_as_user: int(),
      run_as_group: int(),
      read_only_root_filesystem: bool(),
    }),
    created_at: Nullable(Type.String({ format: 'date-time' })),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
    credential_mode: Type.Literal('per_user'),
    linked: Type.Boolean(),
    credential_last_used_at: Nullable(Type.String({ format: 'date-time' })),
    status: Nullable(ServerStatusSchema),
    gateway_url: str(),
  },
  { title: 'McpServer' },
);
export type ServerRecord = Static<typeof ServerRecordSchema>;

/** What the caller's own credential looks like for this server. */
export interface CallerLink {
  linked: boolean;
  lastUsedAt: Date | null;
}

/** `{gateway_base}/servers/<id>/mcp`, or null when the deployment publishes no gateway. */
export function gatewayUrl(gatewayBase: string | null, id: string): string | null {
  return gatewayBase === null ? null : `${gatewayBase}/servers/${id}/mcp`;
}

/** Null for a remote server, and for a managed one the operator has not reported on. */
function statusOf(server: McpServer): ServerStatusRecord | null {
  const s = server.status;
  if (server.spec.runtime !== 'managed' || !s || Object.keys(s).length === 0) return null;
  // Ready describes the generation the operator saw; a newer spec is not proven yet.
  const current = (s.observedGeneration ?? 0) >= (server.metadata.generation ?? 0);
  return {
    ready: s.ready === true && current,
    replicas: s.replicas ?? 0,
    ready_replicas: s.readyReplicas ?? 0,
    url: s.url ?? null,
    conditions: (s.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      last_transition_time: c.lastTransitionTime,
    })),
  };
}

export function serverRecord(
  server: McpServer,
  opts: { gatewayBase: string | null; link: CallerLink },
): ServerRecord {
  const spec = server.spec;
  const managed = spec.runtime === 'managed';
  const id = server.metadata.uid ?? '';
  return {
    id,
    organization_id: server.metadata.labels?.[ORGANIZATION_LABEL] ?? '',
    name: server.metadata.name ?? '',
    display_name: spec.displayName,
    description: spec.description ?? null,
    runtime: spec.runtime,
    tool_allowlist: spec.toolAllowlist ?? [],
    address: managed ? null : (spec.address ?? null),
    namespace: managed ? (server.metadata.namespace ?? null) : null,
    image: managed ? (spec.image ?? null) : null,
    port: managed ? (spec.port ?? null) : null,
    path: mcpServerPath(spec),
    arguments: managed ? (spec.arguments ?? []) : [],
    env: managed ? envNamesOf(server).map((name) => ({ name, configured: true as const })) : [],
    resources: {
      cpu_request: spec.resources?.cpuRequest ?? null,
      memory_request: spec.resources?.memoryRequest ?? null,
      cpu_limit: spec.resources?.cpuLimit ?? null,
      memory_limit: spec.resources?.memoryLimit ?? null,
    },
    security: {
      run_as_non_root: spec.security?.runAsNonRoot ?? null,
      run_as_user: spec.security?.runAsUser ?? null,
      run_as_group: spec.security?.runAsGroup ?? null,
      read_only_root_filesystem: spec.security?.readOnlyRootFilesystem ?? null,
    },
    created_at: metaTime(server.metadata, 'creationTimestamp') ?? null,
    updated_at: updatedAtOf(server),
    credential_mode: 'per_user',
    linked: opts.link.linked,
    credential_last_used_at: opts.link.lastUsedAt?.toISOString() ?? null,
    status: statusOf(server),
    gateway_url: gatewayUrl(opts.gatewayBase, id),
  };
}
