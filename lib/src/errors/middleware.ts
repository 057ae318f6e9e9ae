import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { ApiError, ValidationFailed } from './api-error.js';

/** The one boundary that turns errors into responses; anything unknown is a 500 that leaks nothing. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (thrown: unknown, req, res, next) => {
    if (res.headersSent) {
      next(thrown);
      return;
    }
    const err = fromBodyParser(thrown);
    if (err instanceof ApiError) {
      res
        .set(err.headers)
        .status(err.status)
        .json({ error: { code: err.code, message: err.message } });
      return;
    }
    if (err instanceof ValidationFailed) {
      res.status(422).json({ error: { message: 'request validation failed', fields: err.fields } });
      return;
    }
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    res.status(500).json({ error: { code: 'internal_error', message: 'internal error' } });
  };
}

/**
 * Body-parser and router failures as platform errors: malformed JSON is a validation failure,
 * an oversized body a 413, a path that is not valid percent-encoding a 400; anything else is
 * answered as it is.
 */
export function fromBodyParser(err: unknown): unknown {
  // A refusal a parser's verify hook made itself (service/hostile-input.ts).
  if (err instanceof ApiError || err instanceof ValidationFailed) return err;
  // The router could not decode a path parameter (malformed percent-encoding).
  if (err instanceof URIError) {
    return new ApiError('bad_request', 'the path is not valid percent-encoding');
  }
  const type = (err as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed') {
    return new ValidationFailed([{ field: '', message: 'body is not valid JSON' }]);
  }
  if (type === 'entity.too.large')
    return new ApiError('request_too_large', 'request body is too large');
  // body-parser's other refusals (charset, encoding, aborted) carry a 4xx status and `expose`.
  const e = err as { status?: unknown; expose?: unknown; message?: unknown } | null;
  if (e?.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    const message = typeof e.message === 'string' ? e.message : 'the request could not be read';
    return new ApiError(e.status === 415 ? 'unsupported_media_type' : 'bad_request', message);
  }
  return err;
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError('route_not_found', `no route for ${req.method} ${req.path}`));
};
