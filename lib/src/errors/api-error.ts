import { type ErrorCode, statusOf } from './codes.js';

/** A refusal with a platform code; the error middleware writes `{"error": {code, message}}`. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, e.g. `WWW-Authenticate`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = statusOf(code);
  }
}

export interface FieldError {
  /** Dotted path of the offending field, e.g. `env.1FOO` or `tool_allowlist[2]`. */
  field: string;
  message: string;
}

/** Request validation failure: 422 with the field errors and no code (spec: Errors). */
export class ValidationFailed extends Error {
  constructor(readonly fields: FieldError[]) {
    super(`request validation failed: ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`);
    this.name = 'ValidationFailed';
  }
}
