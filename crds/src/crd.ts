import { GROUP, VERSION } from './meta.js';
import { MCP_SERVER } from './mcp-server.js';
import type { KindDefinition } from './schema-helpers.js';
import { TENANT_LIFECYCLE } from './tenant-lifecycle.js';

/** Every kind this package defines, in a stable order. */
export const KINDS: readonly KindDefinition[] = [TENANT_LIFECYCLE, MCP_SERVER];

type JsonObject = Record<string, unknown>;

/** A deep copy that keeps only what JSON keeps: TypeBox's symbol keys disappear. */
export function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const KEY_ORDER = [
  'description',
  'type',
  'format',
  'nullable',
  'enum',
  'default',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'required',
  'properties',
  'items',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
];

/** The schema with its keywords in one readable order (type first, nested schemas last). */
export function orderSchemaKeys(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const rank = (key: string) =>
    KEY_ORDER.includes(key) ? KEY_ORDER.indexOf(key) : KEY_ORDER.length;
  const entries = Object.entries(schema as Record<string, unknown>).sort(
    ([a], [b]) => rank(a) - rank(b),
  );
  return Object.fromEntries(
    entries.map(([key, value]) => {
      if (key === 'items') return [key, orderSchemaKeys(value)];
      if (key === 'properties' && value !== null && typeof value === 'object') {
        return [
          key,
          Object.fromEntries(Object.entries(value).map(([k, v]) => [k, orderSchemaKeys(v)])),
        ];
      }
      return [key, value];
    }),
  );
}

export function crdName(def: Pick<KindDefinition, 'plural'>): string {
  return `${def.plural}.${GROUP}`;
}

/**
 * The `openAPIV3Schema` of a kind. The root's `apiVersion`, `kind` and `metadata` are the
 * standard Kubernetes ones (the apiserver owns metadata and refuses anything more than a type
 * for it); the rest is the TypeBox schema as is.
 */
export function openApiSchema(def: KindDefinition): JsonObject {
  const schema = toJson(def.schema) as unknown as {
    properties: JsonObject;
    'x-kubernetes-validations'?: JsonObject[];
  };
  const properties: JsonObject = {
    apiVersion: {
      description: 'Versioned schema of this representation of an object.',
      type: 'string',
    },
    kind: { description: 'REST resource this object represents.', type: 'string' },
    metadata: { type: 'object' },
  };
  for (const [key, value] of Object.entries(schema.properties)) {
    if (!(key in properties)) properties[key] = value;
  }
  return orderSchemaKeys({
    description: `${def.kind} is an aiplane custom resource.`,
    type: 'object',
    required: ['spec'],
    properties,
    ...(schema['x-kubernetes-validations']
      ? { 'x-kubernetes-validations': schema['x-kubernetes-validations'] }
      : {}),
  }) as JsonObject;
}

export function crdManifest(def: KindDefinition): JsonObject {
  return toJson({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdName(def),
      labels: { 'app.kubernetes.io/part-of': 'aiplane' },
    },
    spec: {
      group: GROUP,
      names: {
        kind: def.kind,
        listKind: def.listKind,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: def.categories,
      },
      scope: def.scope,
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: def.printerColumns,
          schema: { openAPIV3Schema: openApiSchema(def) },
        },
      ],
    },
  });
}

/** The CustomResourceDefinitions of every kind, as plain JSON objects. */
export function crdManifests(): Record<string, unknown>[] {
  return KINDS.map(crdManifest);
}
