import { Type } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from './codes.js';

/** Every code of the table, as the `code` of an error body can carry it. */
const Code = Type.Unsafe<ErrorCode>({
  type: 'string',
  enum: Object.keys(ERROR_CODES),
  description: 'one code of the error table (docs/errors.md)',
});

/** The body of every refusal with a code: `{"error": {"code", "message"}}` (middleware.ts). */
export const ErrorBody = Type.Object(
  { error: Type.Object({ code: Code, message: Type.String() }) },
  { title: 'Error', description: 'A refusal: the platform error code and a message.' },
);

/** The body of a request validation failure: 422, no code, the offending fields. */
export const ValidationErrorBody = Type.Object(
  {
    error: Type.Object({
      message: Type.Literal('request validation failed'),
      fields: Type.Array(
        Type.Object({
          field: Type.String({ description: 'dotted path of the field, e.g. `env.1FOO`' }),
          message: Type.String(),
        }),
      ),
    }),
  },
  {
    title: 'ValidationError',
    description: 'A request that breaks the schema or a rule: 422 with one entry per field.',
  },
);
