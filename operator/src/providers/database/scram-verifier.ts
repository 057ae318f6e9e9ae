import { createHash, createHmac, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** PostgreSQL's defaults (`scram_iterations`, SCRAM_DEFAULT_SALT_LEN). */
const DEFAULT_ITERATIONS = 4096;
const SALT_BYTES = 16;

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

export interface ScramVerifierOptions {
  salt?: Buffer;
  iterations?: number;
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password
 * (`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, RFC 5802/7677), computed
 * here so that `CREATE/ALTER ROLE … PASSWORD` never carries the password itself: the server
 * stores a pre-hashed value as is, and the password cannot end up in the server log (a
 * failing statement, `log_statement = 'ddl'`) or in pg_stat_statements.
 *
 * Only printable ASCII is accepted: SASLprep leaves it unchanged, so hashing the raw bytes is
 * exactly what the server does at login (generated passwords are base64url).
 */
export async function scramSha256Verifier(
  password: string,
  options: ScramVerifierOptions = {},
): Promise<string> {
  if (!PRINTABLE_ASCII.test(password)) {
    throw new Error('a tenant database password must be non-empty printable ASCII');
  }
  const salt = options.salt ?? randomBytes(SALT_BYTES);
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  const salted = await pbkdf2Async(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return (
    `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}` +
    `$${storedKey.toString('base64')}:${serverKey.toString('base64')}`
  );
}
