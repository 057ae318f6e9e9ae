import {
  Type,
  type SchemaOptions,
  type Static,
  type TSchema,
  type TUnsafe,
} from '@sinclair/typebox';

/**
 * Small builders for the parts of a Kubernetes structural schema that TypeBox does not model
 * directly. Each returns a plain JSON-schema-shaped object that both ajv and the apiserver read.
 */

/** A string restricted to `values`, emitted as `enum` (never `anyOf`, which structural schemas forbid). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({
    ...options,
    type: 'string',
    enum: [...values],
    maxLength: Math.max(...values.map((v) => v.length)),
  });
}

/** OpenAPI v3.0 `nullable: true` (Kubernetes does not accept type arrays such as `["string", "null"]`). */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

export function Int64(options: SchemaOptions = {}) {
  return Type.Integer({ ...options, format: 'int64' });
}

export function Int32(options: SchemaOptions = {}) {
  return Type.Integer({ ...options, format: 'int32' });
}

/** An RFC 3339 timestamp as Kubernetes writes it (`metav1.Time`). */
export function DateTime(options: SchemaOptions = {}) {
  return Type.String({ ...options, format: 'date-time', maxLength: 64 });
}

/** A lowercase RFC 1123 DNS label. */
export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** One `x-kubernetes-validations` entry: a CEL rule the apiserver (and our ajv validators) enforce. */
export interface CelRule {
  rule: string;
  message: string;
  /** Relative JSON path of the field the error is reported on, e.g. `.image`. */
  fieldPath?: string;
  reason?:
    'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export function celRules(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

/** A transition rule: the field may not change once set. */
export function immutable(field: string): CelRule {
  return { rule: 'self == oldSelf', message: `${field} is immutable` };
}

/** Rules that `self` compares against the old object are evaluated only on update. */
export function isTransitionRule(rule: CelRule): boolean {
  return /\boldSelf\b/.test(rule.rule);
}

/** A printer column of `kubectl get`. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** Everything needed to emit one CustomResourceDefinition and validate its objects. */
export interface KindDefinition {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  scope: 'Cluster' | 'Namespaced';
  /** The whole object: apiVersion, kind, metadata, spec, status. */
  schema: TSchema;
  printerColumns: readonly PrinterColumn[];
}
