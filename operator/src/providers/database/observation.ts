import type { PoolClient } from 'pg';
import type { DatabaseNames } from './database-names.js';
import {
  databaseOwnership,
  type ObservedDatabase,
  type ObservedRole,
  type Ownership,
  roleOwnership,
} from './ownership.js';

/** One snapshot of what the cluster holds under the tenant's names. */
export interface Observation {
  names: DatabaseNames;
  role: ObservedRole | undefined;
  database: ObservedDatabase | undefined;
  roleOwnership: Ownership;
  databaseOwnership: Ownership;
  adminIsSuperuser: boolean;
}

/** Reads the tenant's role and database (comments, owner) and whether the admin is a superuser. */
export async function observe(
  client: PoolClient,
  names: DatabaseNames,
  uid: string,
): Promise<Observation> {
  const roles = await client.query<{ comment: string | null; can_login: boolean }>(
    `SELECT shobj_description(oid, 'pg_authid') AS comment, rolcanlogin AS can_login
       FROM pg_roles WHERE rolname = $1`,
    [names.role],
  );
  const databases = await client.query<{ comment: string | null; owner: string }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment, pg_get_userbyid(datdba) AS owner
       FROM pg_database WHERE datname = $1`,
    [names.database],
  );
  const admin = await client.query<{ superuser: boolean }>(
    `SELECT current_setting('is_superuser') = 'on' AS superuser`,
  );
  const roleRow = roles.rows[0];
  const role = roleRow && { comment: roleRow.comment, canLogin: roleRow.can_login };
  const database = databases.rows[0];
  const ownRole = roleOwnership(role, uid);
  return {
    names,
    role,
    database,
    roleOwnership: ownRole,
    databaseOwnership: databaseOwnership(database, { name: names.role, ownership: ownRole }, uid),
    adminIsSuperuser: admin.rows[0]?.superuser ?? false,
  };
}
