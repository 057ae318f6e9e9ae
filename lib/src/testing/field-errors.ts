import { ValidationFailed } from '../errors/api-error.js';

/** The fields a call's 422 names (in order); none when it does not fail validation. */
export function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationFailed) return err.fields.map((f) => f.field);
    throw err;
  }
  return [];
}
