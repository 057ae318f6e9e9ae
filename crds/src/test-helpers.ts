import assert from 'node:assert/strict';
import type { ValidationResult } from './validate.js';

/** One table row: what is wrong, the input, the path reported and what its message says. */
export type BadCase = [what: string, input: unknown, path: string, message: RegExp];

export function assertAccepted<T>(result: ValidationResult<T>): T {
  if (!result.ok) assert.fail(`expected acceptance, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

export function assertRefused<T>(result: ValidationResult<T>, path: string, message: RegExp): void {
  if (result.ok) assert.fail(`expected a refusal at ${path}, but the input was accepted`);
  const at = result.errors.filter((e) => e.path === path);
  assert.ok(at.length > 0, `no error at ${path}: ${JSON.stringify(result.errors)}`);
  assert.ok(
    at.some((e) => message.test(e.message)),
    `no error at ${path} matches ${String(message)}: ${JSON.stringify(at)}`,
  );
}

export const chars = (n: number, c = 'a') => c.repeat(n);
