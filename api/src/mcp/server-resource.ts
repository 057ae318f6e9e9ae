import {
  API_VERSION,
  MCP_SERVER_KIND,
  metaTime,
  ORGANIZATION_LABEL,
  type McpServer,
  type McpServerSpec,
} from '@aiplane/crds';
import type { CreateServerBody, UpdateServerBody } from './server-body.js';

/** Labels and annotations the API writes on McpServer resources and their env Secrets. */
export { ORGANIZATION_LABEL };
export const SERVER_LABEL = 'aiplane.io/mcp-server';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'aiplane-api';
/** Names of the environment variables (never values): the response lists them. */
export const ENV_NAMES_ANNOTATION = 'aiplane.io/env-names';
export const UPDATED_AT_ANNOTATION = 'aiplane.io/updated-at';

type Spec = McpServerSpec;
type Resources = NonNullable<Spec['resources']>;
type Security = NonNullable<Spec['security']>;
type BodyResources = {
  [K in 'cpu_request' | 'memory_request' | 'cpu_limit' | 'memory_limit']?: string | null;
};
type BodySecurity = {
  run_as_non_root?: boolean | null;
  run_as_user?: number | null;
  run_as_group?: number | null;
  read_only_root_filesystem?: boolean | null;
};

function resourcesSpec(r: BodyResources): Resources {
  return {
    cpuRequest: r.cpu_request ?? null,
    memoryRequest: r.memory_request ?? null,
    cpuLimit: r.cpu_limit ?? null,
    memoryLimit: r.memory_limit ?? null,
  };
}

function securitySpec(s: BodySecurity): Security {
  return {
    runAsNonRoot: s.run_as_non_root ?? null,
    runAsUser: s.run_as_user ?? null,
    runAsGroup: s.run_as_group ?? null,
    readOnlyRootFilesystem: s.read_only_root_filesystem ?? null,
  };
}

/** The spec of a new server (without `envSecretRef`, which the store adds). */
export function specOf(body: CreateServerBody): Spec {
  const base = {
    runtime: body.runtime,
    displayName: body.display_name,
    description: body.description ?? null,
    toolAllowlist: body.tool_allowlist ?? [],
  };
  if (body.runtime === 'remote') return { ...base, address: body.address };
  return {
    ...base,
    image: body.image,
    port: body.port,
    ...(body.path !== undefined ? { path: body.path } : {}),
    arguments: body.arguments ?? [],
    resources: resourcesSpec(body.resources ?? {}),
    security: securitySpec(body.security ?? {}),
  };
}

/** The stored spec with an update applied: what is sent replaces, what is omitted stays. */
export function updatedSpec(stored: Spec, body: UpdateServerBody): Spec {
  const next: Spec = { ...stored };
  if (body.display_name !== undefined) next.displayName = body.display_name;
  if (body.description !== undefined) next.description = body.description;
  if (body.tool_allowlist !== undefined) next.toolAllowlist = body.tool_allowlist;
  if (body.runtime === 'remote') {
    if (body.address !== undefined) next.address = body.address;
    return next;
  }
  if (body.image !== undefined) next.image = body.image;
  if (body.port !== undefined) next.port = body.port;
  if (body.path !== undefined) next.path = body.path;
  if (body.arguments !== undefined) next.arguments = body.arguments;
  if (body.resources !== undefined) next.resources = resourcesSpec(body.resources);
  if (body.security !== undefined) next.security = securitySpec(body.security);
  return next;
}

export function newServerObject(opts: {
  name: string;
  namespace: string;
  organizationId: string;
  spec: Spec;
  envNames: readonly string[];
  now: Date;
}): McpServer {
  return {
    apiVersion: API_VERSION,
    kind: MCP_SERVER_KIND,
    metadata: {
      name: opts.name,
      namespace: opts.namespace,
      labels: { [ORGANIZATION_LABEL]: opts.organizationId, [MANAGED_BY_LABEL]: MANAGED_BY },
      annotations: {
        [ENV_NAMES_ANNOTATION]: opts.envNames.join(','),
        [UPDATED_AT_ANNOTATION]: opts.now.toISOString(),
      },
    },
    spec: opts.spec,
  };
}

export function envNamesOf(server: McpServer): string[] {
  const raw = server.metadata.annotations?.[ENV_NAMES_ANNOTATION] ?? '';
  return raw === '' ? [] : raw.split(',');
}

export function updatedAtOf(server: McpServer): string | null {
  return (
    server.metadata.annotations?.[UPDATED_AT_ANNOTATION] ??
    metaTime(server.metadata, 'creationTimestamp') ??
    null
  );
}
