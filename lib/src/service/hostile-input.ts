import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { ApiError, ValidationFailed } from '../errors/api-error.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A `\u0000` escape preceded by an even number of backslashes (so not `\\u0000`, text). */
const NUL_ESCAPE = /(?<!\\)(?:\\\\)*\\u0000/;

/**
 * Why a JSON body's bytes cannot be taken (docs/adr/0042), or undefined: JSON is UTF-8 (RFC
 * 8259 §8.1), so another charset is 415 and bytes that are not UTF-8 are not JSON (422); a
 * string with NUL (`\u0000`) is refused as PostgreSQL's text cannot hold it (422).
 */
export function jsonTextRefusal(
  body: Buffer,
  charset: string,
): ApiError | ValidationFailed | undefined {
  if (charset.toLowerCase() !== 'utf-8') {
    return new ApiError('unsupported_media_type', `a JSON body must be UTF-8, not ${charset}`);
  }
  try {
    strictUtf8.decode(body);
  } catch {
    return new ValidationFailed([{ field: '', message: 'body is not valid UTF-8' }]);
  }
  if (body.includes('\\u0000') && NUL_ESCAPE.test(body.toString('utf8'))) {
    return new ValidationFailed([{ field: '', message: 'strings must not contain NUL (\\u0000)' }]);
  }
  return undefined;
}

/** express.json with {@link jsonTextRefusal}: the platform's JSON body parser. */
export function jsonBodyParser(limit: string): RequestHandler {
  return express.json({
    limit,
    verify: (_req: IncomingMessage, _res, body: Buffer, encoding: string) => {
      const refusal = jsonTextRefusal(body, encoding);
      if (refusal) throw refusal;
    },
  });
}

/** A percent-encoded NUL anywhere in the target: no path or query value may carry one. */
const ENCODED_NUL = /%00/i;

/**
 * Refuses a request whose path or query holds a NUL (`%00`) with 400 bad_request: no
 * identifier, name or filter has one, and PostgreSQL's text cannot hold one (a store would
 * fail with a 500).
 */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  if (ENCODED_NUL.test(req.originalUrl)) {
    next(new ApiError('bad_request', 'the path and query must not contain NUL (%00)'));
    return;
  }
  next();
};
