import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Static, TSchema } from '@sinclair/typebox';
import { CEL_EVALUATION_FAILED, createAjv } from './ajv.js';
import { toJson } from './crd.js';
import {
  McpServerSchema,
  McpServerSpecSchema,
  McpServerStatusSchema,
  type McpServer,
  type McpServerSpec,
  type McpServerStatus,
} from './mcp-server.js';
import {
  TenantLifecycleSchema,
  TenantLifecycleSpecSchema,
  TenantLifecycleStatusSchema,
  type TenantLifecycle,
  type TenantLifecycleSpec,
  type TenantLifecycleStatus,
} from './tenant-lifecycle.js';

export interface ValidationError {
  /** Dotted path of the offending field, relative to what was validated: `spec.arguments[0]`. */
  path: string;
  message: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: ValidationError[] };

export type Validator<T> = (input: unknown) => ValidationResult<T>;

/**
 * The same schema with `additionalProperties: false` on every object: the apiserver prunes
 * unknown fields silently, but a caller of these validators wants them refused. Root
 * `metadata` is left open (the apiserver owns it and it has many more fields than we model).
 */
export function closeObjects(schema: unknown, root = true): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closeObjects(item, false));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [
          name,
          root && name === 'metadata' ? sub : closeObjects(sub, false),
        ]),
      );
    } else if (key === 'x-kubernetes-validations' || key === 'default' || key === 'enum') {
      out[key] = value;
    } else {
      out[key] = closeObjects(value, false);
    }
  }
  if ('properties' in out) out.additionalProperties = false;
  return out;
}

function pointerToPath(pointer: string): string {
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path === '' ? part : `.${part}`;
  }
  return path;
}

function join(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

function toValidationError(error: ErrorObject): ValidationError {
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: join(path, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return {
        path: join(path, String(params.additionalProperty)),
        message: 'is not a known field',
      };
    case 'enum':
      return {
        path,
        message: `must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

/** Errors for display; a CEL rule that could not run because the shape is already wrong is noise. */
export function toValidationErrors(errors: readonly ErrorObject[]): ValidationError[] {
  const failedToRun = (e: ErrorObject) =>
    (e.params as Record<string, unknown>)[CEL_EVALUATION_FAILED] === true;
  const meaningful = errors.some((e) => !failedToRun(e))
    ? errors.filter((e) => !failedToRun(e))
    : errors;
  return meaningful.map(toValidationError);
}

let shared: Ajv | undefined;

/**
 * A validator that refuses unknown fields, evaluates the CRD's CEL rules (not transition rules)
 * and, on success, returns a copy of the input with the schema defaults applied, as the
 * apiserver would store it. The input is never modified.
 */
export function createValidator<T extends TSchema>(schema: T): Validator<Static<T>> {
  let compiled: ValidateFunction | undefined;
  return (input) => {
    shared ??= createAjv();
    compiled ??= shared.compile(closeObjects(toJson(schema)) as object);
    const value: unknown = input === undefined ? undefined : structuredClone(input);
    if (compiled(value)) return { ok: true, value: value as Static<T> };
    return { ok: false, errors: toValidationErrors(compiled.errors ?? []) };
  };
}

export const validateTenantLifecycle: Validator<TenantLifecycle> =
  createValidator(TenantLifecycleSchema);
export const validateTenantLifecycleSpec: Validator<TenantLifecycleSpec> =
  createValidator(TenantLifecycleSpecSchema);
export const validateTenantLifecycleStatus: Validator<TenantLifecycleStatus> = createValidator(
  TenantLifecycleStatusSchema,
);
export const validateMcpServer: Validator<McpServer> = createValidator(McpServerSchema);
export const validateMcpServerSpec: Validator<McpServerSpec> = createValidator(McpServerSpecSchema);
export const validateMcpServerStatus: Validator<McpServerStatus> =
  createValidator(McpServerStatusSchema);
