import { type DestinationStream, type Logger, type LoggerOptions as PinoOptions, pino } from 'pino';

export type { Logger } from 'pino';

/** Field names whose values never reach a log line, matched case-insensitively. */
export const SECRET_FIELD_NAMES = [
  'password',
  'passwd',
  'token',
  'secret',
  'authorization',
  'credential',
  'credentials',
  'apiKey',
  'cookie',
] as const;

export const REDACTED = '[REDACTED]';

/**
 * A key is secret when, ignoring case, `-` and `_`, it is one of {@link SECRET_FIELD_NAMES} or
 * ends with one (`accessToken`, `client_secret`, `x-api-key`), optionally plural.
 * `secretName` or `tokenUrl` are not secret.
 */
const SECRET_KEY = new RegExp(`(${SECRET_FIELD_NAMES.map((n) => n.toLowerCase()).join('|')})s?$`);

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[-_]/g, ''));
}

/** Exact-name paths for pino's own redaction (top level and two levels down, any parent). */
function redactPaths(): string[] {
  const names = new Set<string>();
  for (const name of SECRET_FIELD_NAMES) {
    names
      .add(name)
      .add(name.toLowerCase())
      .add(name[0]?.toUpperCase() + name.slice(1));
  }
  names.add('api_key').add('x-api-key').add('accessToken').add('refreshToken').add('clientSecret');
  const paths: string[] = [];
  for (const name of names) {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : `["${name}"]`;
    const dotted = key.startsWith('[') ? key : `.${key}`;
    paths.push(key, `*${dotted}`, `*.*${dotted}`);
  }
  return paths;
}

const API_EXCEPTION = /^HTTP-Code: (\d+)\nMessage: ([^\n]*)\nBody: /;

/**
 * client-node's `ApiException` message (and so its stack) embeds the whole response body and
 * headers as JSON, out of reach of field-name redaction; keep only code, message and the
 * `Status` message there (body and headers stay as fields, scrubbed).
 */
function shortenApiException<E extends { message: string; stack?: string; body?: unknown }>(
  err: E,
): E {
  const match = API_EXCEPTION.exec(err.message);
  if (!match) return err;
  const body = err.body as { message?: unknown } | undefined;
  const detail = typeof body?.message === 'string' ? `: ${body.message}` : '';
  const message = `HTTP ${match[1]} ${match[2]}${detail}`;
  const frames = (err.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  return { ...err, message, stack: [`Error: ${message}`, ...frames].join('\n') };
}

/** Copies `value` with every secret-named field censored, at any depth (cycles tolerated). */
function scrub(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => scrub(item, seen));
  if (value instanceof Error)
    return scrub(shortenApiException(pino.stdSerializers.err(value)), seen);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = isSecretKey(key) ? REDACTED : scrub(inner, seen);
  }
  return out;
}

export interface CreateLoggerOptions {
  level?: string;
  /** Added to every line as `name`. */
  name?: string;
  /** Where lines go; default stdout. Tests pass a stream to read the output. */
  destination?: DestinationStream;
  /** Fields on every line (e.g. `{ component: 'operator' }`). */
  base?: Record<string, unknown>;
}

/**
 * A JSON logger that never writes a secret-named field's value: pino `redact` paths for the
 * usual shapes plus a deep scrub of logged objects, child bindings and errors (including
 * `ApiException` bodies and headers). Values inside free-text messages are the caller's duty.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const config: PinoOptions = {
    level: options.level ?? 'info',
    base: { ...options.base, ...(options.name ? { name: options.name } : {}) },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactPaths(), censor: REDACTED },
    formatters: {
      level: (label) => ({ level: label }),
      bindings: (bindings) => scrub(bindings) as Record<string, unknown>,
      log: (object) => scrub(object) as Record<string, unknown>,
    },
    serializers: { err: (err: unknown) => scrub(err) },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}

/** The logger for one controller: every line carries `controller`. */
export function controllerLogger(parent: Logger, controller: string): Logger {
  return parent.child({ controller });
}
