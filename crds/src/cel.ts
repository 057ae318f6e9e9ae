import { Environment } from '@marcbachmann/cel-js';

/**
 * Evaluates the CRDs' `x-kubernetes-validations` rules in process, so the ajv validators refuse
 * what the apiserver refuses, from the same rule text. Values are converted the way the
 * apiserver presents them to CEL: a null-valued field is absent (`has()` is false) and JSON
 * integers are CEL ints.
 */
const environment = new Environment()
  .registerVariable('self', 'dyn')
  .registerVariable('oldSelf', 'dyn');

export type CelProgram = (self: unknown, oldSelf?: unknown) => CelOutcome;
export type CelOutcome = { ok: true } | { ok: false; error?: string };

export function toCelValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCelValue);
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (field !== null && field !== undefined) out[key] = toCelValue(field);
    }
    return out;
  }
  return value;
}

/** Parses a rule (throwing on a syntax error) and returns a function that evaluates it. */
export function compileCel(rule: string): CelProgram {
  const program = environment.parse(rule);
  const checked = program.check();
  if (!checked.valid) throw new Error(`CEL rule ${JSON.stringify(rule)} does not type-check`);
  return (self, oldSelf) => {
    try {
      const result: unknown = program({ self: toCelValue(self), oldSelf: toCelValue(oldSelf) });
      if (result === true) return { ok: true };
      if (result === false) return { ok: false };
      return { ok: false, error: `rule ${JSON.stringify(rule)} did not evaluate to a bool` };
    } catch (cause) {
      const message = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
      return { ok: false, error: `rule ${JSON.stringify(rule)} failed: ${message}` };
    }
  };
}
