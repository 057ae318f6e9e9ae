export { ApiError, type FieldError, ValidationFailed } from './api-error.js';
export { ERROR_CODES, type ErrorCode, wsCloseOf } from './codes.js';
export { errorMiddleware, fromBodyParser, notFound } from './middleware.js';
export { ErrorBody, ValidationErrorBody } from './schemas.js';
