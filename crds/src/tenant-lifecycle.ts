import { Type, type Static } from '@sinclair/typebox';
import { API_VERSION, CATEGORIES, ConditionsSchema, ObjectMetaSchema } from './meta.js';
import {
  DateTime,
  DNS_LABEL_PATTERN,
  Int64,
  Nullable,
  StringEnum,
  celRules,
  immutable,
  type KindDefinition,
} from './schema-helpers.js';

export const TENANT_LIFECYCLE_KIND = 'TenantLifecycle';
export const TENANT_LIFECYCLE_PLURAL = 'tenantlifecycles';

export const TENANT_PHASES = ['Pending', 'Provisioning', 'Ready', 'Degraded', 'Deleting'] as const;
export type TenantPhase = (typeof TENANT_PHASES)[number];

/** Provisioning stages, in the order they are reached. */
export const TENANT_STAGES = ['Accepted', 'Namespace', 'Identity', 'Database', 'Ready'] as const;
export type TenantStage = (typeof TENANT_STAGES)[number];

export const TenantLifecycleSpecSchema = Type.Object(
  {
    slug: Type.String({
      description:
        'Tenant slug: a lowercase DNS label of at most 56 characters (the namespace is tenant-<slug>), immutable. The resource name equals it.',
      minLength: 1,
      maxLength: 56,
      pattern: DNS_LABEL_PATTERN,
      ...celRules(immutable('slug')),
    }),
    displayName: Type.Optional(
      Type.String({ description: 'Human-readable tenant name.', minLength: 1, maxLength: 200 }),
    ),
    identity: Type.Object(
      {
        enabled: Type.Boolean({
          description: 'Must be true: every tenant has an identity organization.',
          ...celRules({
            rule: 'self == true',
            message: 'the identity service must be enabled (identity.enabled must be true)',
          }),
        }),
      },
      { description: 'The identity service (always required).' },
    ),
    database: Type.Optional(
      Type.Object(
        {
          // Optional, so that the parent's `default: {}` is itself valid (the apiserver checks
          // a default before applying the nested ones); defaulting then makes it false.
          dedicated: Type.Optional(
            Type.Boolean({
              description: 'Provision a dedicated database for the tenant.',
              default: false,
            }),
          ),
        },
        { description: 'The optional dedicated database.', default: {} },
      ),
    ),
  },
  { description: 'Desired state of the tenant.' },
);
export type TenantLifecycleSpec = Static<typeof TenantLifecycleSpecSchema>;

export const TenantLifecycleStatusSchema = Type.Object(
  {
    phase: Type.Optional(StringEnum(TENANT_PHASES, { description: 'Current lifecycle phase.' })),
    stage: Type.Optional(
      StringEnum(TENANT_STAGES, { description: 'Last provisioning stage reached.' }),
    ),
    observedGeneration: Type.Optional(
      Int64({ description: 'The spec generation the status reflects.', minimum: 0 }),
    ),
    conditions: Type.Optional(ConditionsSchema),
    services: Type.Optional(
      Type.Object(
        {
          identity: Type.Optional(
            Nullable(
              Type.Object({
                ready: Type.Optional(Type.Boolean()),
                organizationId: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
              }),
            ),
          ),
          database: Type.Optional(
            Nullable(
              Type.Object({
                ready: Type.Optional(Type.Boolean()),
                name: Type.Optional(Nullable(Type.String({ maxLength: 63 }))),
                secretRef: Type.Optional(
                  Nullable(Type.Object({ name: Type.String({ minLength: 1, maxLength: 253 }) })),
                ),
              }),
            ),
          ),
        },
        { description: 'Per-service readiness.' },
      ),
    ),
    organizationId: Type.Optional(
      Nullable(Type.String({ description: 'Identity-provider organization.', maxLength: 255 })),
    ),
    previousOrganizationIds: Type.Optional(
      Type.Array(Type.String({ maxLength: 255 }), {
        description:
          'Organizations the tenant had before its organization was re-created, oldest first: what the API still moves to organizationId (docs/adr/0015).',
        maxItems: 16,
      }),
    ),
    lastUpdateTime: Type.Optional(DateTime({ description: 'When the status last changed.' })),
  },
  { description: 'Observed state of the tenant, written by the operator.' },
);
export type TenantLifecycleStatus = Static<typeof TenantLifecycleStatusSchema>;

export const TenantLifecycleSchema = Type.Object(
  {
    apiVersion: StringEnum([API_VERSION]),
    kind: StringEnum([TENANT_LIFECYCLE_KIND]),
    metadata: ObjectMetaSchema,
    spec: TenantLifecycleSpecSchema,
    status: Type.Optional(TenantLifecycleStatusSchema),
  },
  // The resource is named after the tenant (DESIGN.md): one slug, one object.
  celRules({
    rule: 'self.metadata.name == self.spec.slug',
    message: 'metadata.name must equal spec.slug',
  }),
);
export type TenantLifecycle = Static<typeof TenantLifecycleSchema>;

export const TENANT_LIFECYCLE: KindDefinition = {
  kind: TENANT_LIFECYCLE_KIND,
  listKind: `${TENANT_LIFECYCLE_KIND}List`,
  plural: TENANT_LIFECYCLE_PLURAL,
  singular: 'tenantlifecycle',
  shortNames: ['tl'],
  categories: CATEGORIES,
  scope: 'Cluster',
  schema: TenantLifecycleSchema,
  printerColumns: [
    { name: 'Slug', type: 'string', jsonPath: '.spec.slug' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Identity', type: 'boolean', jsonPath: '.status.services.identity.ready' },
    { name: 'Database', type: 'boolean', jsonPath: '.spec.database.dedicated' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

/** The namespace a tenant's workloads and MCP servers live in (a DNS label: slug ≤ 56). */
export function tenantNamespace(slug: string): string {
  return `tenant-${slug}`;
}
