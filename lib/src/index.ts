export {
  controllerLogger,
  createLogger,
  type CreateLoggerOptions,
  isSecretKey,
  type Logger,
  REDACTED,
  SECRET_FIELD_NAMES,
} from './logger.js';
