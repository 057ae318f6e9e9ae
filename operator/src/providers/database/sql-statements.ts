import pg from 'pg';

const { escapeIdentifier: id, escapeLiteral: literal } = pg;

/** Everything a statement may name; identifiers are quoted, literals escaped, nothing else. */
export interface StatementInput {
  role: string;
  database: string;
  /** The ownership marker (the object comment). */
  marker: string;
  /** A SCRAM-SHA-256 verifier, never a plain password. */
  passwordVerifier: string;
}

type Statement = (input: StatementInput) => string;

/**
 * The DDL the PostgreSQL provisioner runs, the only place SQL text is put together. Role and
 * database names always go through `escapeIdentifier`, comments and password verifiers
 * through `escapeLiteral` (DDL takes no `$1` parameters). Queries that only read or call
 * functions use bind parameters instead and are not here.
 */
export const statements = {
  /** A login role with no administrative attributes. */
  createRole: ({ role, passwordVerifier }) =>
    `CREATE ROLE ${id(role)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION ` +
    `NOBYPASSRLS PASSWORD ${literal(passwordVerifier)}`,
  commentOnRole: ({ role, marker }) => `COMMENT ON ROLE ${id(role)} IS ${literal(marker)}`,
  /**
   * LOGIN again (remove sets NOLOGIN first) and the caller's password. The other attributes
   * are not repeated: naming SUPERUSER at all needs a superuser.
   */
  setRolePassword: ({ role, passwordVerifier }) =>
    `ALTER ROLE ${id(role)} WITH LOGIN PASSWORD ${literal(passwordVerifier)}`,
  /** For an admin that is not a superuser: owning, dropping and signalling need membership. */
  grantRoleToAdmin: ({ role }) => `GRANT ${id(role)} TO CURRENT_USER`,
  createDatabase: ({ database, role }) => `CREATE DATABASE ${id(database)} OWNER ${id(role)}`,
  commentOnDatabase: ({ database, marker }) =>
    `COMMENT ON DATABASE ${id(database)} IS ${literal(marker)}`,
  setDatabaseOwner: ({ database, role }) => `ALTER DATABASE ${id(database)} OWNER TO ${id(role)}`,
  revokePublicConnect: ({ database }) =>
    `REVOKE CONNECT, TEMPORARY ON DATABASE ${id(database)} FROM PUBLIC`,
  grantOwnerConnect: ({ database, role }) =>
    `GRANT CONNECT, TEMPORARY ON DATABASE ${id(database)} TO ${id(role)}`,
  /** Stops new logins while the tenant is being removed. */
  disableLogin: ({ role }) => `ALTER ROLE ${id(role)} WITH NOLOGIN`,
  /** PostgreSQL 13+: terminates the remaining sessions itself. */
  dropDatabase: ({ database }) => `DROP DATABASE IF EXISTS ${id(database)} WITH (FORCE)`,
  /** Objects and grants of the role in the admin database and on shared objects. */
  dropOwned: ({ role }) => `DROP OWNED BY ${id(role)}`,
  dropRole: ({ role }) => `DROP ROLE IF EXISTS ${id(role)}`,
} satisfies Record<string, Statement>;

export type StatementName = keyof typeof statements;
