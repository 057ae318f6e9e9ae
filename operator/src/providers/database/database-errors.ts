import { NETWORK_ERROR_CODES, PermanentError } from '@aiplane/lib';

/**
 * The shared PostgreSQL cluster could not be reached (refused, timed out, reset, shutting
 * down, out of connection slots). Retryable; a tenant whose database was ready goes Degraded.
 */
export class DatabaseUnreachable extends Error {
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnreachable';
  }
}

/**
 * A role or database with the tenant's name exists but was not created for this tenant (its
 * ownership marker names another tenant uid, or it has none). Nothing is adopted or changed.
 * A {@link PermanentError}: retrying cannot help until someone removes or renames it.
 */
export class DatabaseOwnedByOther extends PermanentError {
  constructor(
    readonly object: 'role' | 'database',
    readonly objectName: string,
  ) {
    super(
      `a PostgreSQL ${object} named "${objectName}" already exists and was not created for this tenant`,
    );
    this.name = 'DatabaseOwnedByOther';
  }
}

/**
 * SQLSTATEs of an unavailable server: class 08 (connection exception) is checked by prefix;
 * admin/crash shutdown, cannot connect now (starting up, recovery), too many connections.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres reports lost connections and its own timeouts with plain messages. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^timeout expired$/,
  /Client has encountered a connection error/,
  /^Connection closed$/,
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** True when an error (or one of its causes) says the cluster cannot be reached. */
export function isConnectionFailure(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && isRecord(current); depth++) {
    if (current instanceof DatabaseUnreachable) return true;
    const code = current.code;
    if (typeof code === 'string') {
      if (NETWORK_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08/.test(code)) {
        return true;
      }
    }
    if (Array.isArray(current.errors) && current.errors.some(isConnectionFailure)) return true;
    const message = current.message;
    if (typeof message === 'string' && CONNECTION_MESSAGES.some((m) => m.test(message))) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, s) => (s.length > 0 ? t.replaceAll(s, '[REDACTED]') : t), text);
}

/**
 * Turns a failure of `action` into the provider's error: {@link DatabaseOwnedByOther} as is,
 * connection failures into {@link DatabaseUnreachable}, the rest into a plain Error naming the
 * action and the SQLSTATE. `secrets` are scrubbed from the message; when one had to be
 * scrubbed, the original error is not kept as the cause either.
 */
export function databaseError(
  err: unknown,
  context: { action: string; endpoint: string; secrets: readonly string[] },
): Error {
  if (err instanceof DatabaseOwnedByOther || err instanceof DatabaseUnreachable) return err;
  const original = err instanceof Error ? err.message : String(err);
  const message = redact(original, context.secrets);
  const cause = message === original ? err : undefined;
  if (isConnectionFailure(err)) {
    return new DatabaseUnreachable(
      `PostgreSQL at ${context.endpoint} is unreachable (${context.action}): ${message}`,
      { cause },
    );
  }
  const code = isRecord(err) && typeof err.code === 'string' ? ` (SQLSTATE ${err.code})` : '';
  return new Error(`PostgreSQL could not ${context.action}: ${message}${code}`, { cause });
}
