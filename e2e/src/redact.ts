/**
 * Secrets never reach a log line, a failure message or a diagnostics file: every text the
 * suite prints goes through `redact`, which replaces each remembered secret and anything
 * shaped like a JWT or a SQL password literal.
 */

export const REDACTED = '[REDACTED]';

/** Shorter values are too likely to occur by chance to be replaced everywhere. */
const MIN_SECRET_LENGTH = 6;

const PATTERNS: RegExp[] = [
  // JSON Web Tokens (access, refresh and id tokens): three base64url parts, header `{"`.
  /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
  // PostgreSQL statements and error lines that carry a password literal.
  /(PASSWORD\s+)'(?:[^']|'')*'/gi,
  // Credentials inside a URL (postgres://user:password@host).
  /(\/\/[^/\s:@]+:)[^/\s@]+@/g,
];

/** `text` with every secret in `secrets` (and every pattern above) replaced. */
export function redactText(text: string, secrets: Iterable<string>): string {
  let out = text;
  // Longest first, so a secret that contains another one is replaced whole.
  const sorted = [...new Set(secrets)]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) out = out.split(secret).join(REDACTED);
  out = out.replace(PATTERNS[0] as RegExp, REDACTED);
  out = out.replace(PATTERNS[1] as RegExp, `$1'${REDACTED}'`);
  out = out.replace(PATTERNS[2] as RegExp, `$1${REDACTED}@`);
  return out;
}

/** The secrets of this run: what `redact` hides. */
export class SecretRegistry {
  private readonly values = new Set<string>();

  /** Remembers `value` (and returns it, so it can wrap an expression). */
  remember<T extends string | undefined>(value: T): T {
    if (value !== undefined && value !== '') this.values.add(value);
    return value;
  }

  redact(text: string): string {
    return redactText(text, this.values);
  }
}

/** The registry of this process: the suite remembers every secret it makes or receives. */
export const secrets = new SecretRegistry();
