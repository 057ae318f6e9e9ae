export {
  databaseError,
  DatabaseOwnedByOther,
  DatabaseUnreachable,
  isConnectionFailure,
} from './database-errors.js';
export {
  databaseNames,
  type DatabaseNames,
  MAX_IDENTIFIER_BYTES,
  TENANT_NAME_PREFIX,
} from './database-names.js';
export type {
  DatabaseCheck,
  DatabaseCheckReason,
  DatabaseCheckState,
  DatabaseProvisioner,
  DatabaseRemoval,
  EnsureDatabaseInput,
  EnsuredDatabase,
  RemovalOutcome,
  TenantDatabaseRef,
} from './database-provisioner.js';
export { ownershipMarker } from './ownership.js';
export { generatePassword } from './password.js';
export { PostgresProvisioner, type PostgresProvisionerOptions } from './postgres-provisioner.js';
export {
  connectionUri,
  type DatabaseCredentials,
  type DatabaseSecretData,
  secretData,
} from './secret-data.js';
