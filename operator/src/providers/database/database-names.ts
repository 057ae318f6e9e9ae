import { createHash } from 'node:crypto';

/** Prefix of every tenant database and owner role on the shared cluster. */
export const TENANT_NAME_PREFIX = 'tenant_';

/** PostgreSQL truncates identifiers longer than NAMEDATALEN - 1 = 63 bytes. */
export const MAX_IDENTIFIER_BYTES = 63;

/** Prefix of the hashed form; a slug never starts with '-', so the short form never has it. */
const HASHED_PREFIX = `${TENANT_NAME_PREFIX}_`;
const HASH_CHARS = 10;
/** Slug characters kept in the hashed form: 63 - 'tenant__' - '_' - hash. */
const HASHED_SLUG_CHARS = MAX_IDENTIFIER_BYTES - HASHED_PREFIX.length - 1 - HASH_CHARS;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The PostgreSQL names of a tenant's dedicated database and its owner role. */
export interface DatabaseNames {
  database: string;
  role: string;
}

/**
 * Derives the database and owner-role names from a tenant slug (a DNS label, at most 63
 * characters), deterministically and injectively, always within PostgreSQL's 63-byte limit:
 *
 * - `tenant_<slug with '-' → '_'>` when that fits (slugs of up to 56 characters);
 * - otherwise `tenant__<first 44 characters, '-' → '_'>_<10 hex of sha256(slug)>`, exactly
 *   63 bytes. The double underscore marks the hashed form: a slug cannot start with '-', so
 *   no short name starts with `tenant__` and the two forms never collide.
 *
 * Both names are the same (roles and databases live in different catalogs). The result only
 * contains `[a-z0-9_]`, but every statement still quotes it.
 */
export function databaseNames(slug: string): DatabaseNames {
  if (slug.length > MAX_IDENTIFIER_BYTES || !DNS_LABEL.test(slug)) {
    throw new Error(
      `tenant slug ${JSON.stringify(slug)} is not a DNS label of at most 63 characters`,
    );
  }
  const mapped = slug.replaceAll('-', '_');
  let name = `${TENANT_NAME_PREFIX}${mapped}`;
  if (name.length > MAX_IDENTIFIER_BYTES) {
    const hash = createHash('sha256').update(slug).digest('hex').slice(0, HASH_CHARS);
    name = `${HASHED_PREFIX}${mapped.slice(0, HASHED_SLUG_CHARS)}_${hash}`;
  }
  return { database: name, role: name };
}
