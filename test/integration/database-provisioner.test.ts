import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import {
  connectionUri,
  type DatabaseCredentials,
  databaseNames,
  DatabaseOwnedByOther,
  DatabaseUnreachable,
  generatePassword,
  ownershipMarker,
  PostgresProvisioner,
  type PostgresProvisionerOptions,
  secretData,
  type TenantDatabaseRef,
} from '../../operator/src/providers/database/index.js';
import { environment } from './harness.js';
import { uniqueName } from './kube-helpers.js';
import { rememberSecret } from './secrets.js';

const { escapeIdentifier: id, escapeLiteral: literal } = pg;

describe('PostgresProvisioner on the real PostgreSQL', function () {
  let admin: pg.Pool;
  let provisioner: PostgresProvisioner;
  const tenants: TenantDatabaseRef[] = [];
  const extraRoles: string[] = [];
  const extraDatabases: string[] = [];
  const clients: pg.Client[] = [];
  const provisioners: PostgresProvisioner[] = [];

  function adminOptions(): PostgresProvisionerOptions['admin'] {
    const info = environment().info().postgres;
    rememberSecret(info.password);
    return { host: info.host, port: info.port, user: info.user, password: info.password };
  }

  function newProvisioner(options: Partial<PostgresProvisionerOptions> = {}): PostgresProvisioner {
    const p = new PostgresProvisioner({ admin: adminOptions(), ...options });
    provisioners.push(p);
    return p;
  }

  function newTenant(): TenantDatabaseRef {
    const tenant = { slug: uniqueName('db'), uid: randomUUID() };
    tenants.push(tenant);
    return tenant;
  }

  /** A client logged in as the tenant, through the Secret's `uri` (so its encoding is used). */
  async function connectAs(
    creds: DatabaseCredentials,
    database = creds.database,
  ): Promise<pg.Client> {
    rememberSecret(creds.password);
    const { host, port } = adminOptions();
    const client = new pg.Client({
      connectionString: connectionUri({ ...creds, host, port, database }),
    });
    // A session ended by the server must not crash the test run.
    client.on('error', () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  }

  async function one<T extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
  ): Promise<T | undefined> {
    const result = await admin.query<T>(sql, params);
    return result.rows[0];
  }

  async function roleRow(name: string) {
    return one<{
      comment: string | null;
      login: boolean;
      superuser: boolean;
      createdb: boolean;
      createrole: boolean;
    }>(
      `SELECT shobj_description(oid, 'pg_authid') AS comment, rolcanlogin AS login,
              rolsuper AS superuser, rolcreatedb AS createdb, rolcreaterole AS createrole
         FROM pg_roles WHERE rolname = $1`,
      [name],
    );
  }

  async function databaseRow(name: string) {
    return one<{ comment: string | null; owner: string; public_connect: boolean }>(
      `SELECT shobj_description(oid, 'pg_database') AS comment, pg_get_userbyid(datdba) AS owner,
              has_database_privilege('public', oid, 'CONNECT') AS public_connect
         FROM pg_database WHERE datname = $1`,
      [name],
    );
  }

  /** Creates the tenant's role as `ensure` does, as if the operator then crashed. */
  async function createMarkedRole(tenant: TenantDatabaseRef): Promise<string> {
    const { role } = databaseNames(tenant.slug);
    const client = await admin.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE ROLE ${id(role)} LOGIN PASSWORD ${literal(generatePassword())}`);
      await client.query(`COMMENT ON ROLE ${id(role)} IS ${literal(ownershipMarker(tenant.uid))}`);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    return role;
  }

  before(function () {
    const info = environment().info().postgres;
    rememberSecret(info.password);
    admin = new pg.Pool({ connectionString: info.url, max: 2 });
    provisioner = newProvisioner();
  });

  afterEach(async function () {
    await Promise.allSettled(clients.splice(0).map((c) => c.end()));
  });

  after(async function () {
    if (!admin) return;
    for (const tenant of tenants) await provisioner.remove(tenant).catch(() => undefined);
    for (const db of extraDatabases) {
      await admin.query(`DROP DATABASE IF EXISTS ${id(db)} WITH (FORCE)`).catch(() => undefined);
    }
    for (const role of extraRoles) {
      await admin.query(`DROP ROLE IF EXISTS ${id(role)}`).catch(() => undefined);
    }
    await Promise.allSettled(provisioners.map((p) => p.close()));
    await admin.end();
  });

  it('creates a login role without admin attributes and a database it owns, both marked with the tenant uid', async function () {
    const tenant = newTenant();
    const creds = await provisioner.ensure(tenant);
    rememberSecret(creds.password);
    const names = databaseNames(tenant.slug);
    assert.equal(creds.database, names.database);
    assert.equal(creds.username, names.role);
    assert.equal(creds.passwordGenerated, true);
    assert.deepEqual(creds.created, { role: true, database: true });
    assert.match(creds.password, /^[A-Za-z0-9_-]{32,}$/);

    assert.deepEqual(await roleRow(names.role), {
      comment: `aiplane:tenant-uid=${tenant.uid}`,
      login: true,
      superuser: false,
      createdb: false,
      createrole: false,
    });
    assert.deepEqual(await databaseRow(names.database), {
      comment: `aiplane:tenant-uid=${tenant.uid}`,
      owner: names.role,
      public_connect: false,
    });
  });

  it('lets the tenant connect with the returned credentials and create a table', async function () {
    const creds = await provisioner.ensure(newTenant());
    const client = await connectAs(creds);
    await client.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    await client.query('INSERT INTO notes (body) VALUES ($1)', ['hello']);
    const { rows } = await client.query<{ body: string }>('SELECT body FROM notes');
    assert.deepEqual(rows, [{ body: 'hello' }]);
  });

  it('refuses CONNECT to a login role that was given no grant on the tenant database', async function () {
    const creds = await provisioner.ensure(newTenant());
    const outsider = uniqueName('outsider').replaceAll('-', '_');
    const password = generatePassword();
    extraRoles.push(outsider);
    await admin.query(`CREATE ROLE ${id(outsider)} LOGIN PASSWORD ${literal(password)}`);
    await assert.rejects(
      connectAs({ ...creds, username: outsider, password }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, '42501');
        assert.match(err.message, /permission denied for database/);
        return true;
      },
    );
    // The same role may still connect where PUBLIC keeps CONNECT: the refusal is the grant.
    await connectAs({ ...creds, username: outsider, password }, 'postgres');
  });

  it('changes nothing when ensure runs again with the stored password', async function () {
    const tenant = newTenant();
    const first = await provisioner.ensure(tenant);
    const client = await connectAs(first);
    await client.query('CREATE TABLE kept (id int)');
    await client.end();

    const second = await provisioner.ensure({ ...tenant, password: first.password });
    assert.deepEqual(
      { ...second, created: second.created, passwordGenerated: second.passwordGenerated },
      { ...first, created: { role: false, database: false }, passwordGenerated: false },
    );
    const again = await connectAs(second);
    const { rows } = await again.query<{ name: string | null }>(
      `SELECT to_regclass('public.kept')::text AS name`,
    );
    assert.deepEqual(rows, [{ name: 'kept' }]);
  });

  it('sets the password the caller passes, and the previous one stops working', async function () {
    const tenant = newTenant();
    const first = await provisioner.ensure(tenant);
    const password = generatePassword();
    const second = await provisioner.ensure({ ...tenant, password });
    assert.equal(second.password, password);
    assert.equal(second.passwordGenerated, false);
    await connectAs(second);
    await assert.rejects(connectAs(first), (err: Error & { code?: string }) => {
      assert.equal(err.code, '28P01');
      return true;
    });
  });

  it('gives a role created just before a crash a fresh password that works and finishes the database', async function () {
    const tenant = newTenant();
    await createMarkedRole(tenant);
    const creds = await provisioner.ensure(tenant);
    assert.equal(creds.passwordGenerated, true);
    assert.deepEqual(creds.created, { role: false, database: true });
    const client = await connectAs(creds);
    await client.query('SELECT 1');
    assert.equal((await databaseRow(creds.database))?.public_connect, false);
  });

  it('adopts and marks the database when the operator crashed between creating and marking it', async function () {
    const tenant = newTenant();
    const role = await createMarkedRole(tenant);
    const { database } = databaseNames(tenant.slug);
    await admin.query(`CREATE DATABASE ${id(database)} OWNER ${id(role)}`);
    assert.equal((await provisioner.check(tenant)).reason, 'DatabaseIncomplete');

    const creds = await provisioner.ensure(tenant);
    assert.deepEqual(creds.created, { role: false, database: false });
    assert.equal((await databaseRow(database))?.comment, ownershipMarker(tenant.uid));
    assert.equal((await provisioner.check(tenant)).state, 'ready');
    await connectAs(creds);
  });

  it('refuses with DatabaseOwnedByOther a same-named database no tenant created, and remove leaves it', async function () {
    const tenant = newTenant();
    const { database, role } = databaseNames(tenant.slug);
    extraDatabases.push(database);
    await admin.query(`CREATE DATABASE ${id(database)}`);

    await assert.rejects(provisioner.ensure(tenant), (err: unknown) => {
      assert.ok(err instanceof DatabaseOwnedByOther);
      assert.equal(err.object, 'database');
      assert.equal(err.objectName, database);
      return true;
    });
    assert.equal(await roleRow(role), undefined, 'ensure created the role before refusing');
    assert.deepEqual(await provisioner.check(tenant), {
      state: 'foreign',
      reason: 'DatabaseOwnedByOther',
      message: `database "${database}" was not created for this tenant`,
    });

    const removal = await provisioner.remove(tenant);
    assert.deepEqual(removal, {
      database: { name: database, outcome: 'foreign' },
      role: { name: role, outcome: 'absent' },
    });
    assert.deepEqual(await databaseRow(database), {
      comment: null,
      owner: adminOptions().user,
      public_connect: true,
    });
  });

  it('refuses a role marked for another tenant, and remove for that tenant leaves ours in place', async function () {
    const tenant = newTenant();
    const creds = await provisioner.ensure(tenant);
    const intruder = { slug: tenant.slug, uid: randomUUID() };

    await assert.rejects(provisioner.ensure(intruder), (err: unknown) => {
      assert.ok(err instanceof DatabaseOwnedByOther);
      assert.equal(err.object, 'role');
      return true;
    });
    assert.equal((await provisioner.check(intruder)).reason, 'RoleOwnedByOther');
    const removal = await provisioner.remove(intruder);
    assert.equal(removal.database.outcome, 'foreign');
    assert.equal(removal.role.outcome, 'foreign');
    await connectAs(creds);
  });

  it('ends an open session of the tenant and drops the database and the role on remove', async function () {
    const tenant = newTenant();
    const creds = await provisioner.ensure(tenant);
    const session = await connectAs(creds);
    await session.query('SELECT 1');

    const removal = await provisioner.remove(tenant);
    assert.deepEqual(removal, {
      database: { name: creds.database, outcome: 'removed' },
      role: { name: creds.username, outcome: 'removed' },
    });
    await assert.rejects(session.query('SELECT 1'));
    assert.equal(await databaseRow(creds.database), undefined);
    assert.equal(await roleRow(creds.username), undefined);
  });

  it('reports nothing left to remove when remove runs a second time', async function () {
    const tenant = newTenant();
    const { database, role } = databaseNames(tenant.slug);
    await provisioner.ensure(tenant);
    await provisioner.remove(tenant);
    assert.deepEqual(await provisioner.remove(tenant), {
      database: { name: database, outcome: 'absent' },
      role: { name: role, outcome: 'absent' },
    });
  });

  it('reports missing before ensure, ready after it, foreign to another uid and missing after remove', async function () {
    const tenant = newTenant();
    assert.equal((await provisioner.check(tenant)).reason, 'RoleMissing');
    await provisioner.ensure(tenant);
    assert.deepEqual(await provisioner.check(tenant), {
      state: 'ready',
      reason: 'DatabaseReady',
      message: `database "${databaseNames(tenant.slug).database}" is ready`,
    });
    assert.equal((await provisioner.check({ ...tenant, uid: randomUUID() })).state, 'foreign');
    await provisioner.remove(tenant);
    assert.equal((await provisioner.check(tenant)).state, 'missing');
  });

  it('throws DatabaseUnreachable from check, ensure and remove when nothing listens on the port', async function () {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address && typeof address === 'object');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const closed = newProvisioner({
      admin: { ...adminOptions(), port: address.port },
      connectTimeoutMillis: 2000,
    });
    const tenant = newTenant();
    const attempts: (() => Promise<unknown>)[] = [
      () => closed.check(tenant),
      () => closed.ensure(tenant),
      () => closed.remove(tenant),
    ];
    for (const attempt of attempts) {
      await assert.rejects(attempt(), (err: unknown) => {
        assert.ok(err instanceof DatabaseUnreachable, String(err));
        assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${address.port} is unreachable`));
        assert.ok(!err.message.includes(adminOptions().password));
        return true;
      });
    }
  });

  it('reports a wrong admin password as a plain error that does not echo it', async function () {
    const wrong = generatePassword();
    const p = newProvisioner({ admin: { ...adminOptions(), password: wrong } });
    await assert.rejects(p.check(newTenant()), (err: Error) => {
      assert.ok(!(err instanceof DatabaseUnreachable));
      assert.match(err.message, /password authentication failed .*SQLSTATE 28P01/);
      assert.ok(!err.message.includes(wrong));
      return true;
    });
  });

  it('writes the tenant endpoint, not the admin connection, into the credentials and the Secret data', async function () {
    const p = newProvisioner({ tenantEndpoint: { host: 'postgres.aiplane.svc', port: 6543 } });
    const tenant = newTenant();
    const creds = await p.ensure(tenant);
    const data = secretData(creds);
    assert.equal(data.host, 'postgres.aiplane.svc');
    assert.equal(data.port, '6543');
    assert.equal(
      data.uri,
      `postgresql://${creds.username}:${creds.password}@postgres.aiplane.svc:6543/${creds.database}`,
    );
    await p.remove(tenant);
  });

  it('works through an admin with CREATEROLE and CREATEDB that is not a superuser', async function () {
    const name = uniqueName('admin').replaceAll('-', '_');
    const password = generatePassword();
    rememberSecret(password);
    extraRoles.push(name);
    await admin.query(
      `CREATE ROLE ${id(name)} LOGIN CREATEROLE CREATEDB PASSWORD ${literal(password)}`,
    );
    const limited = newProvisioner({ admin: { ...adminOptions(), user: name, password } });
    const tenant = newTenant();

    const creds = await limited.ensure(tenant);
    assert.equal((await roleRow(creds.username))?.superuser, false);
    const session = await connectAs(creds);
    await session.query('CREATE TABLE t (id int)');
    assert.equal((await limited.check(tenant)).state, 'ready');

    const removal = await limited.remove(tenant);
    assert.equal(removal.database.outcome, 'removed');
    assert.equal(removal.role.outcome, 'removed');
    assert.equal(await databaseRow(creds.database), undefined);
    assert.equal(await roleRow(creds.username), undefined);
  });
});
