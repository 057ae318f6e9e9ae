import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int64, StringEnum } from './schema-helpers.js';

export const GROUP = 'aiplane.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
/** `kubectl get aiplane` lists every kind of the group. */
export const CATEGORIES = ['aiplane'] as const;

/**
 * The part of `metav1.ObjectMeta` this code base reads and writes. It is deliberately loose
 * (unknown metadata fields are allowed) and never emitted into a CRD: the apiserver owns it.
 */
export const ObjectMetaSchema = Type.Object({
  name: Type.Optional(Type.String()),
  generateName: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  generation: Type.Optional(Type.Integer()),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
  finalizers: Type.Optional(Type.Array(Type.String())),
  ownerReferences: Type.Optional(
    Type.Array(
      Type.Object({
        apiVersion: Type.String(),
        kind: Type.String(),
        name: Type.String(),
        uid: Type.String(),
        controller: Type.Optional(Type.Boolean()),
        blockOwnerDeletion: Type.Optional(Type.Boolean()),
      }),
    ),
  ),
});
export type ObjectMeta = Static<typeof ObjectMetaSchema>;

/**
 * `creationTimestamp` and `deletionTimestamp` are left out of {@link ObjectMeta}: client-node
 * types them as `Date`, but custom objects arrive as JSON with strings. Read them through
 * this function, which takes either form and answers an ISO 8601 string.
 */
export function metaTime(
  meta: object | undefined,
  field: 'creationTimestamp' | 'deletionTimestamp',
): string | undefined {
  const value: unknown = (meta as Record<string, unknown> | undefined)?.[field];
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' && value !== '' ? new Date(value).toISOString() : undefined;
}

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

/** `metav1.Condition`, with the same limits and patterns. */
export const ConditionSchema = Type.Object({
  type: Type.String({
    description: 'Type of condition in CamelCase, e.g. Ready.',
    minLength: 1,
    maxLength: 316,
    pattern:
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
  }),
  status: StringEnum(CONDITION_STATUSES, { description: 'True, False or Unknown.' }),
  reason: Type.String({
    description: 'Machine-readable CamelCase reason for the last transition.',
    minLength: 1,
    maxLength: 1024,
    pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
  }),
  message: Type.String({ description: 'Human-readable details.', maxLength: 32768 }),
  lastTransitionTime: DateTime({ description: 'When the status last changed.' }),
  observedGeneration: Type.Optional(
    Int64({ description: 'The generation the condition was set for.', minimum: 0 }),
  ),
});
export type Condition = Static<typeof ConditionSchema>;

/** Conditions keyed by `type`, so server-side apply merges them entry by entry. */
export const ConditionsSchema = Type.Array(ConditionSchema, {
  description: 'Latest observations of the resource state.',
  maxItems: 32,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});
