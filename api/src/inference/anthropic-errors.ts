import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '@aiplane/lib';
import { ApiError, fromBodyParser, ValidationFailed } from '@aiplane/lib/errors';
import { BackendFailure } from './backend-client.js';
import { UnsupportedRequest } from './translate-request.js';
import { vendorId } from './translate-response.js';

/** The vendor's error types and the status each goes with. */
export const VENDOR_ERRORS = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
} as const;
export type VendorErrorType = keyof typeof VENDOR_ERRORS;

/** A refusal in the vendor's shape: `{"type":"error","error":{"type","message"}}`. */
export class VendorError extends Error {
  override readonly name = 'VendorError';
  constructor(
    readonly type: VendorErrorType,
    message: string,
  ) {
    super(message);
  }
  get status(): number {
    return VENDOR_ERRORS[this.type];
  }
}

/** The vendor's type for a platform status. */
function typeOfStatus(status: number): VendorErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'overloaded_error';
  if (status >= 400 && status < 500) return 'invalid_request_error';
  return 'api_error';
}

/**
 * Any error as the vendor's: platform refusals keep their message under the vendor's type for
 * their status (422 validation failures become 400 naming the fields), backend failures after
 * the retries map 429 → rate_limit_error, 502/503/504 and an unreachable backend →
 * overloaded_error (529), a backend's own 4xx → invalid_request_error, the rest → api_error.
 */
export function vendorErrorOf(thrown: unknown): VendorError | undefined {
  const err = fromBodyParser(thrown);
  if (err instanceof VendorError) return err;
  if (err instanceof ApiError) return new VendorError(typeOfStatus(err.status), err.message);
  if (err instanceof ValidationFailed) {
    return new VendorError(
      'invalid_request_error',
      err.fields.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join('; '),
    );
  }
  if (err instanceof UnsupportedRequest)
    return new VendorError('invalid_request_error', err.message);
  if (err instanceof BackendFailure) {
    if (err.timedOut)
      return new VendorError('api_error', 'the model backend did not answer in time');
    if (err.status === 429)
      return new VendorError(
        'rate_limit_error',
        `the model backend is rate limited: ${err.message}`,
      );
    if (err.status === undefined || [502, 503, 504].includes(err.status)) {
      return new VendorError(
        'overloaded_error',
        `the model backend is unavailable: ${err.message}`,
      );
    }
    if (err.status === 401 || err.status === 403) {
      return new VendorError('api_error', 'the model backend refused the platform’s credentials');
    }
    if (err.status >= 400 && err.status < 500) {
      return new VendorError(
        'invalid_request_error',
        `the model backend refused the request: ${err.message}`,
      );
    }
    return new VendorError('api_error', `the model backend failed: ${err.message}`);
  }
  return undefined;
}

export function vendorErrorBody(e: VendorError): {
  type: 'error';
  error: { type: string; message: string };
} {
  return { type: 'error', error: { type: e.type, message: e.message } };
}

/** Every answer under the vendor's mount carries a `request-id` (as the vendor's do). */
export const requestId: RequestHandler = (_req, res, next) => {
  res.set('request-id', vendorId('req'));
  next();
};

export const vendorNotFound: RequestHandler = (req, _res, next) => {
  next(new VendorError('not_found_error', `no route for ${req.method} ${req.path}`));
};

/** The vendor mount's error boundary: its shape, its statuses; unknown errors logged, not leaked. */
export function vendorErrorMiddleware(logger: Logger): ErrorRequestHandler {
  return (thrown: unknown, req, res, next) => {
    if (res.headersSent) {
      next(thrown);
      return;
    }
    let e = vendorErrorOf(thrown);
    if (e === undefined) {
      logger.error({ err: thrown, method: req.method, path: req.path }, 'unhandled error');
      e = new VendorError('api_error', 'internal error');
    }
    if (thrown instanceof ApiError) res.set(thrown.headers);
    res.status(e.status).json(vendorErrorBody(e));
  };
}
