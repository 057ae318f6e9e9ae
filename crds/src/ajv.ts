import { Ajv, type ErrorObject, type FuncKeywordDefinition } from 'ajv';
import addFormats from 'ajv-formats';
import { compileCel } from './cel.js';
import { isTransitionRule, type CelRule } from './schema-helpers.js';

/** What a keyword's `compile` returns: validates data, leaving errors on itself. */
type DataValidateFunction = ReturnType<NonNullable<FuncKeywordDefinition['compile']>>;

/** Marks an ajv error produced because a CEL rule could not be evaluated at all. */
export const CEL_EVALUATION_FAILED = 'celEvaluationFailed';

/** Turns a CRD field path such as `.image` or `.a.b` into a JSON pointer suffix. */
function fieldPathPointer(fieldPath: string | undefined): string {
  if (!fieldPath) return '';
  return fieldPath
    .split('.')
    .filter((part) => part !== '')
    .map((part) => `/${part}`)
    .join('');
}

function celKeyword(rules: CelRule[]): DataValidateFunction {
  const programs = rules
    .filter((rule) => !isTransitionRule(rule))
    .map((rule) => ({ rule, run: compileCel(rule.rule) }));
  const validate: DataValidateFunction = (data, cxt) => {
    const errors: Partial<ErrorObject>[] = [];
    for (const { rule, run } of programs) {
      const outcome = run(data);
      if (outcome.ok) continue;
      errors.push({
        keyword: 'x-kubernetes-validations',
        instancePath: `${cxt?.instancePath ?? ''}${fieldPathPointer(rule.fieldPath)}`,
        message: outcome.error ?? rule.message,
        params: { rule: rule.rule, [CEL_EVALUATION_FAILED]: outcome.error !== undefined },
      });
    }
    validate.errors = errors;
    return errors.length === 0;
  };
  return validate;
}

function listMapKeysKeyword(keys: string[]): DataValidateFunction {
  const validate: DataValidateFunction = (data, cxt) => {
    const errors: Partial<ErrorObject>[] = [];
    if (Array.isArray(data)) {
      const seen = new Set<string>();
      data.forEach((item: unknown, index) => {
        if (item === null || typeof item !== 'object') return;
        const entry = item as Record<string, unknown>;
        const key = JSON.stringify(keys.map((k) => entry[k]));
        if (seen.has(key)) {
          errors.push({
            keyword: 'x-kubernetes-list-map-keys',
            instancePath: `${cxt?.instancePath ?? ''}/${index}`,
            message: `duplicate entry for ${keys.join(', ')}`,
            params: { keys },
          });
        }
        seen.add(key);
      });
    }
    validate.errors = errors;
    return errors.length === 0;
  };
  return validate;
}

/**
 * One ajv instance that understands the Kubernetes dialect of the CRD schemas: `nullable`,
 * `format: int32|int64|date-time`, and the `x-kubernetes-*` keywords (list-map keys must be
 * unique; CEL rules are evaluated, except transition rules, which need the old object).
 * Strict mode stays on, so a typo in a schema keyword fails at compile time.
 */
export function createAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true, useDefaults: true });
  addFormats.default(ajv, ['date-time']);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addKeyword({ keyword: 'x-kubernetes-list-type', schemaType: 'string' });
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    schemaType: 'array',
    compile: listMapKeysKeyword,
    errors: true,
  });
  ajv.addKeyword({
    keyword: 'x-kubernetes-validations',
    schemaType: 'array',
    compile: celKeyword,
    errors: true,
  });
  return ajv;
}
