import {
  type TArray,
  type TInteger,
  Type,
  type Static,
  type TObject,
  type TSchema,
} from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { type FieldError, ValidationFailed } from '../errors/api-error.js';

const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: true });
addFormats.default(ajv);

function fieldOf(e: ErrorObject): string {
  const base = e.instancePath
    .replace(/^\//, '')
    .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
    .replace(/\//g, '.');
  const extra =
    e.keyword === 'additionalProperties'
      ? (e.params as { additionalProperty: string }).additionalProperty
      : e.keyword === 'required'
        ? (e.params as { missingProperty: string }).missingProperty
        : '';
  return [base, extra].filter(Boolean).join('.');
}

function messageOf(e: ErrorObject): string {
  if (e.keyword === 'additionalProperties') return 'unknown field';
  if (e.keyword === 'required') return 'is required';
  return e.message ?? 'is invalid';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths and headers (uids, key ids, organization ids) are UUIDs. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * A request field that may be sent as null (JSON Schema `anyOf [T, null]`). Not the CRDs'
 * `Nullable` (crds/src/schema-helpers.ts), which writes the Kubernetes `nullable` keyword.
 */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/**
 * A listing answer, `{ <key>: [items…], count }` (the shape of every list route), named `title`
 * as its OpenAPI component.
 */
export function ListOf<K extends string, T extends TSchema>(
  key: K,
  item: T,
  title: string,
): TObject<{ [P in K]: TArray<T> } & { count: TInteger }> {
  const properties = { [key]: Type.Array(item), count: Type.Integer() } as {
    [P in K]: TArray<T>;
  } & { count: TInteger };
  return Type.Object(properties, { title });
}

/** Compiles a request schema; the returned function answers the typed body or throws 422. */
export function validator<S extends TSchema>(schema: S): (body: unknown) => Static<S> {
  const check = ajv.compile<Static<S>>(schema);
  return (body) => {
    if (check(body)) return body;
    const fields: FieldError[] = (check.errors ?? []).map((e) => ({
      field: fieldOf(e),
      message: messageOf(e),
    }));
    throw new ValidationFailed(fields);
  };
}
