import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, StopWaiting, waitFor } from './ports.js';
import { startProcess, type ManagedProcess } from './process.js';

/** Finds Debian's PostgreSQL server binaries (/usr/lib/postgresql/<major>/bin), newest first. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => existsSync(join(root, d, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors[0]) throw new Error('PostgreSQL server not installed: run make setup');
  return join(root, majors[0], 'bin');
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
    const bin = postgresBinDir();
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
    return this.info;
  }

  async stop(): Promise<void> {
    // SIGINT is PostgreSQL's "fast" shutdown.
    await this.proc?.stop('SIGINT', 10_000);
  }
}
