import pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import type { Logger } from '@aiplane/lib';
import { DatabaseOwnedByOther, databaseError, DatabaseUnreachable } from './database-errors.js';
import { databaseNames, type DatabaseNames } from './database-names.js';
import type {
  DatabaseCheck,
  DatabaseProvisioner,
  DatabaseRemoval,
  EnsureDatabaseInput,
  EnsuredDatabase,
  RemovalOutcome,
  TenantDatabaseRef,
} from './database-provisioner.js';
import { observe } from './observation.js';
import { type Ownership, ownershipMarker } from './ownership.js';
import { generatePassword } from './password.js';
import { scramSha256Verifier } from './scram-verifier.js';
import { type StatementInput, statements } from './sql-statements.js';

export interface PostgresProvisionerOptions {
  /** The shared cluster's admin connection: a superuser, or a role with CREATEROLE and CREATEDB. */
  admin: {
    host: string;
    port: number;
    user: string;
    password: string;
    /** The database the admin connects to; `postgres` by default. */
    database?: string;
    ssl?: PoolConfig['ssl'];
  };
  /** Host and port written into tenant credentials (e.g. a Service name); the admin's by default. */
  tenantEndpoint?: { host: string; port: number };
  /** Connection attempts give up (DatabaseUnreachable) after this long; 5000 ms by default. */
  connectTimeoutMillis?: number;
  /** Pool size, 3 by default (1-4 is plenty: one operation holds one connection). */
  maxConnections?: number;
  logger?: Logger;
}

/**
 * {@link DatabaseProvisioner} on a shared PostgreSQL (13+) cluster: per tenant one LOGIN role
 * without administrative attributes and one database owned by it, `CONNECT` revoked from
 * PUBLIC, both marked with the tenant uid (see ownership.ts).
 *
 * Crash safety: the role and its marker are created in one transaction; `CREATE DATABASE`
 * cannot be, so an unmarked database owned by our role is recognised as ours and marked on
 * the next run. Passwords are sent as SCRAM verifiers computed here (scram-verifier.ts).
 */
export class PostgresProvisioner implements DatabaseProvisioner {
  private readonly pool: pg.Pool;
  private readonly endpoint: string;
  private readonly tenantEndpoint: { host: string; port: number };
  private readonly logger: Logger | undefined;

  constructor(options: PostgresProvisionerOptions) {
    const { admin } = options;
    this.logger = options.logger;
    this.endpoint = `${admin.host}:${admin.port}`;
    this.tenantEndpoint = options.tenantEndpoint ?? { host: admin.host, port: admin.port };
    this.pool = new pg.Pool({
      host: admin.host,
      port: admin.port,
      user: admin.user,
      password: admin.password,
      database: admin.database ?? 'postgres',
      ssl: admin.ssl,
      max: options.maxConnections ?? 3,
      connectionTimeoutMillis: options.connectTimeoutMillis ?? 5000,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
      application_name: 'aiplane-operator',
    });
    // An idle connection that breaks (server restart) is reported here; without a listener
    // the process would crash. The next operation reconnects or reports DatabaseUnreachable.
    this.pool.on('error', (err) => {
      this.logger?.warn({ error: err.message }, 'idle PostgreSQL connection failed');
    });
  }

  async ensure(input: EnsureDatabaseInput): Promise<EnsuredDatabase> {
    const names = databaseNames(input.slug);
    const marker = ownershipMarker(input.uid);
    const password = input.password ?? generatePassword();
    const passwordVerifier = await scramSha256Verifier(password);
    const secrets = [password, passwordVerifier];
    return this.withClient('create the tenant database', names, secrets, async (client) => {
      const sql: StatementInput = { ...names, marker, passwordVerifier };
      const seen = await observe(client, names, input.uid);
      if (seen.roleOwnership === 'foreign') throw new DatabaseOwnedByOther('role', names.role);
      if (seen.databaseOwnership === 'foreign') {
        throw new DatabaseOwnedByOther('database', names.database);
      }

      const createRole = seen.roleOwnership === 'absent';
      if (createRole) {
        // One transaction: a role never exists without its marker.
        await inTransaction(client, [statements.createRole(sql), statements.commentOnRole(sql)]);
      } else {
        await client.query(statements.setRolePassword(sql));
      }
      if (!seen.adminIsSuperuser) await client.query(statements.grantRoleToAdmin(sql));

      const createDatabase = seen.databaseOwnership === 'absent';
      if (createDatabase) await client.query(statements.createDatabase(sql));
      if (seen.database?.comment !== marker) await client.query(statements.commentOnDatabase(sql));
      if (seen.database && seen.database.owner !== names.role) {
        await client.query(statements.setDatabaseOwner(sql));
      }
      await client.query(statements.revokePublicConnect(sql));
      await client.query(statements.grantOwnerConnect(sql));

      if (createRole || createDatabase) {
        this.logger?.info(
          { database: names.database, role: names.role, createRole, createDatabase },
          'tenant database provisioned',
        );
      }
      return {
        host: this.tenantEndpoint.host,
        port: this.tenantEndpoint.port,
        database: names.database,
        username: names.role,
        password,
        passwordGenerated: input.password === undefined,
        created: { role: createRole, database: createDatabase },
      };
    });
  }

  async check(ref: TenantDatabaseRef): Promise<DatabaseCheck> {
    const names = databaseNames(ref.slug);
    const marker = ownershipMarker(ref.uid);
    return this.withClient('check the tenant database', names, [], async (client) => {
      const seen = await observe(client, names, ref.uid);
      const { role, database } = names;
      if (seen.roleOwnership === 'foreign') {
        return foreign('RoleOwnedByOther', `role "${role}" was not created for this tenant`);
      }
      if (seen.databaseOwnership === 'foreign') {
        return foreign(
          'DatabaseOwnedByOther',
          `database "${database}" was not created for this tenant`,
        );
      }
      if (!seen.role) return missing('RoleMissing', `role "${role}" does not exist`);
      if (!seen.database) {
        return missing('DatabaseMissing', `database "${database}" does not exist`);
      }
      if (!seen.role.canLogin) return missing('RoleIncomplete', `role "${role}" cannot log in`);
      if (seen.database.comment !== marker || seen.database.owner !== role) {
        return missing('DatabaseIncomplete', `database "${database}" is not fully set up`);
      }
      return {
        state: 'ready',
        reason: 'DatabaseReady',
        message: `database "${database}" is ready`,
      };
    });
  }

  async remove(ref: TenantDatabaseRef): Promise<DatabaseRemoval> {
    const names = databaseNames(ref.slug);
    return this.withClient('remove the tenant database', names, [], async (client) => {
      const seen = await observe(client, names, ref.uid);
      const sql: StatementInput = { ...names, marker: '', passwordVerifier: '' };
      const roleIsOurs = seen.roleOwnership === 'ours';
      const databaseIsOurs = seen.databaseOwnership === 'ours';
      if (roleIsOurs) {
        if (!seen.adminIsSuperuser) await client.query(statements.grantRoleToAdmin(sql));
        // No new sessions, then end the role's sessions in every database.
        await client.query(statements.disableLogin(sql));
        await terminate(client, 'usename', names.role);
      }
      if (databaseIsOurs) {
        await terminate(client, 'datname', names.database);
        await client.query(statements.dropDatabase(sql));
      }
      if (roleIsOurs) {
        await client.query(statements.dropOwned(sql));
        await client.query(statements.dropRole(sql));
      }
      const outcome = (o: Ownership): RemovalOutcome =>
        o === 'ours' ? 'removed' : o === 'absent' ? 'absent' : 'foreign';
      const removal: DatabaseRemoval = {
        database: { name: names.database, outcome: outcome(seen.databaseOwnership) },
        role: { name: names.role, outcome: outcome(seen.roleOwnership) },
      };
      if (roleIsOurs || databaseIsOurs) {
        this.logger?.info({ ...removal }, 'tenant database removed');
      }
      if (seen.roleOwnership === 'foreign' || seen.databaseOwnership === 'foreign') {
        this.logger?.warn({ ...removal }, 'left a same-named role or database of another owner');
      }
      return removal;
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Runs `work` on one pooled connection; maps failures to the provider's errors. */
  private async withClient<T>(
    action: string,
    names: DatabaseNames,
    secrets: string[],
    work: (client: PoolClient) => Promise<T>,
  ): Promise<T> {
    const context = {
      action: `${action} "${names.database}"`,
      endpoint: this.endpoint,
      secrets,
    };
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw databaseError(err, context);
    }
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (err) {
      const mapped = databaseError(err, context);
      // A connection that failed mid-operation is not given back to the pool.
      if (mapped instanceof DatabaseUnreachable) broken = mapped;
      throw mapped;
    } finally {
      client.release(broken);
    }
  }
}

function foreign(reason: DatabaseCheck['reason'], message: string): DatabaseCheck {
  return { state: 'foreign', reason, message };
}

function missing(reason: DatabaseCheck['reason'], message: string): DatabaseCheck {
  return { state: 'missing', reason, message };
}

async function inTransaction(client: PoolClient, sql: string[]): Promise<void> {
  await client.query('BEGIN');
  try {
    for (const statement of sql) await client.query(statement);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Ends the sessions of a role (`usename`) or in a database (`datname`), except our own. */
async function terminate(
  client: PoolClient,
  column: 'usename' | 'datname',
  name: string,
): Promise<void> {
  const where = column === 'usename' ? 'usename = $1' : 'datname = $1';
  await client.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE ${where} AND pid <> pg_backend_pid()`,
    [name],
  );
}
