/**
 * Which tenant created a role or a database: the TenantLifecycle uid, recorded as the
 * object's comment (`COMMENT ON ROLE/DATABASE … IS 'aiplane:tenant-uid=<uid>'`).
 */

const MARKER_PREFIX = 'aiplane:tenant-uid=';

/** The comment that marks an object as created for the tenant with this uid. */
export function ownershipMarker(uid: string): string {
  if (uid.trim() === '') throw new Error('a tenant uid is required to mark database objects');
  return `${MARKER_PREFIX}${uid}`;
}

/** `absent`: no such object; `ours`: created for this tenant; `foreign`: anything else. */
export type Ownership = 'absent' | 'ours' | 'foreign';

export interface ObservedRole {
  /** The role's comment (`shobj_description`), null when it has none. */
  comment: string | null;
  canLogin: boolean;
}

export interface ObservedDatabase {
  /** The database's comment, null when it has none. */
  comment: string | null;
  /** Name of the owning role. */
  owner: string;
}

export function roleOwnership(role: ObservedRole | undefined, uid: string): Ownership {
  if (!role) return 'absent';
  return role.comment === ownershipMarker(uid) ? 'ours' : 'foreign';
}

/**
 * A database is ours when it carries our marker, or when it has no comment at all and is
 * owned by our (marked) role: `CREATE DATABASE` cannot share a transaction with its
 * `COMMENT`, so a crash between the two leaves exactly that, and nobody else creates
 * databases owned by a role we made.
 */
export function databaseOwnership(
  database: ObservedDatabase | undefined,
  ourRole: { name: string; ownership: Ownership },
  uid: string,
): Ownership {
  if (!database) return 'absent';
  if (database.comment === ownershipMarker(uid)) return 'ours';
  if (
    database.comment === null &&
    ourRole.ownership === 'ours' &&
    database.owner === ourRole.name
  ) {
    return 'ours';
  }
  return 'foreign';
}
