import { Type, type Static } from '@sinclair/typebox';
import { API_VERSION, CATEGORIES, ConditionsSchema, ObjectMetaSchema } from './meta.js';
import {
  Int32,
  Int64,
  Nullable,
  StringEnum,
  celRules,
  immutable,
  type CelRule,
  type KindDefinition,
} from './schema-helpers.js';

export const MCP_SERVER_KIND = 'McpServer';
export const MCP_SERVER_PLURAL = 'mcpservers';
/**
 * The label naming a server's organization: written by the API on create, kept equal to its
 * tenant's current organization by the operator (docs/adr/0015).
 */
export const ORGANIZATION_LABEL = 'aiplane.io/organization-id';

export const MCP_RUNTIMES = ['managed', 'remote'] as const;
export type McpRuntime = (typeof MCP_RUNTIMES)[number];

/**
 * The path a managed server is served on when `spec.path` is absent. It is applied in code
 * ({@link mcpServerPath}), not as a schema default: the apiserver would write a schema default
 * into remote servers too, and a remote server must not carry `path`.
 */
export const DEFAULT_MCP_PATH = '/mcp';

const MANAGED_ONLY = [
  'image',
  'port',
  'path',
  'arguments',
  'envSecretRef',
  'resources',
  'security',
] as const;
const MANAGED_REQUIRED = ['image', 'port'] as const;

const required = (runtime: McpRuntime, field: string): CelRule => ({
  rule: `self.runtime != '${runtime}' || has(self.${field})`,
  message: `${field} is required when runtime is ${runtime}`,
  fieldPath: `.${field}`,
  reason: 'FieldValueRequired',
});
const forbidden = (runtime: McpRuntime, field: string): CelRule => ({
  rule: `self.runtime != '${runtime}' || !has(self.${field})`,
  message: `${field} is not allowed when runtime is ${runtime}`,
  fieldPath: `.${field}`,
  reason: 'FieldValueForbidden',
});

/** Which fields each runtime requires and forbids; the apiserver enforces these rules. */
export const MCP_SERVER_RUNTIME_RULES: readonly CelRule[] = [
  ...MANAGED_REQUIRED.map((f) => required('managed', f)),
  forbidden('managed', 'address'),
  required('remote', 'address'),
  ...MANAGED_ONLY.map((f) => forbidden('remote', f)),
];

const nullableString = (description: string) =>
  Type.Optional(Nullable(Type.String({ description, maxLength: 64 })));
const nullableBoolean = (description: string) =>
  Type.Optional(Nullable(Type.Boolean({ description })));
const nullableId = (description: string) =>
  Type.Optional(Nullable(Int64({ description, minimum: 0, maximum: 2147483647 })));

export const McpServerSpecSchema = Type.Object(
  {
    runtime: StringEnum(MCP_RUNTIMES, {
      description: 'managed: the platform runs the image; remote: an external server. Immutable.',
      ...celRules(immutable('runtime')),
    }),
    displayName: Type.String({ description: 'Readable name.', minLength: 1, maxLength: 200 }),
    description: Type.Optional(
      Nullable(Type.String({ description: 'Free text; null when unset.', maxLength: 500 })),
    ),
    toolAllowlist: Type.Optional(
      Type.Array(Type.String({ maxLength: 128 }), {
        description: 'Tools the gateway exposes; empty permits every tool.',
        maxItems: 256,
        default: [],
      }),
    ),
    image: Type.Optional(
      Type.String({
        description: 'managed: registry-qualified image with a tag or digest.',
        minLength: 1,
        maxLength: 512,
      }),
    ),
    port: Type.Optional(
      Int32({
        description: 'managed: container port of the MCP endpoint.',
        minimum: 1,
        maximum: 65535,
      }),
    ),
    path: Type.Optional(
      Type.String({
        description: `managed: HTTP path of the MCP endpoint; absent means ${DEFAULT_MCP_PATH}.`,
        maxLength: 1024,
        pattern: '^/',
      }),
    ),
    arguments: Type.Optional(
      Type.Array(Type.String({ maxLength: 4096 }), {
        description: "managed: replaces the image's default command.",
        maxItems: 64,
      }),
    ),
    envSecretRef: Type.Optional(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 253 }) },
        { description: 'managed: Secret in the same namespace holding the environment.' },
      ),
    ),
    resources: Type.Optional(
      Type.Object(
        {
          cpuRequest: nullableString('CPU request; null keeps the platform default.'),
          memoryRequest: nullableString('Memory request; null keeps the platform default.'),
          cpuLimit: nullableString('CPU limit; null keeps the platform default.'),
          memoryLimit: nullableString('Memory limit; null keeps the platform default.'),
        },
        { description: 'managed: compute resources of the container.' },
      ),
    ),
    security: Type.Optional(
      Type.Object(
        {
          runAsNonRoot: nullableBoolean('null keeps the platform default (true).'),
          runAsUser: nullableId('null keeps the platform default.'),
          runAsGroup: nullableId('null keeps the platform default.'),
          readOnlyRootFilesystem: nullableBoolean('null keeps the platform default.'),
        },
        { description: 'managed: container security context.' },
      ),
    ),
    address: Type.Optional(
      Type.String({
        description: 'remote: absolute http(s) URL of the MCP endpoint, stored as sent.',
        minLength: 1,
        maxLength: 2048,
        pattern: '^https?://',
      }),
    ),
  },
  { description: 'Desired state of the MCP server.', ...celRules(...MCP_SERVER_RUNTIME_RULES) },
);
export type McpServerSpec = Static<typeof McpServerSpecSchema>;

export const McpServerStatusSchema = Type.Object(
  {
    ready: Type.Optional(
      Type.Boolean({ description: 'Workload available and an MCP handshake completed.' }),
    ),
    replicas: Type.Optional(Int32({ minimum: 0 })),
    readyReplicas: Type.Optional(Int32({ minimum: 0 })),
    url: Type.Optional(
      Type.String({ description: 'In-cluster address of the workload.', maxLength: 2048 }),
    ),
    conditions: Type.Optional(ConditionsSchema),
    observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  },
  { description: 'Observed state of a managed server, written by the operator.' },
);
export type McpServerStatus = Static<typeof McpServerStatusSchema>;

export const McpServerSchema = Type.Object({
  apiVersion: StringEnum([API_VERSION]),
  kind: StringEnum([MCP_SERVER_KIND]),
  metadata: ObjectMetaSchema,
  spec: McpServerSpecSchema,
  status: Type.Optional(McpServerStatusSchema),
});
export type McpServer = Static<typeof McpServerSchema>;

export const MCP_SERVER: KindDefinition = {
  kind: MCP_SERVER_KIND,
  listKind: `${MCP_SERVER_KIND}List`,
  plural: MCP_SERVER_PLURAL,
  singular: 'mcpserver',
  shortNames: ['mcps'],
  categories: CATEGORIES,
  scope: 'Namespaced',
  schema: McpServerSchema,
  printerColumns: [
    { name: 'Runtime', type: 'string', jsonPath: '.spec.runtime' },
    { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
    { name: 'URL', type: 'string', jsonPath: '.status.url' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

/** The HTTP path of a managed server's endpoint (default applied); null for a remote server. */
export function mcpServerPath(spec: Pick<McpServerSpec, 'runtime' | 'path'>): string | null {
  return spec.runtime === 'managed' ? (spec.path ?? DEFAULT_MCP_PATH) : null;
}
