import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bootstrapKeycloak, type KeycloakInfo } from './keycloak-bootstrap.js';
import { DEV_USERS, type DevUserName } from './keycloak-realm.js';
import { cacheDir, repoRoot, versions } from './paths.js';
import { postgresInstall, type PostgresInfo } from './postgres.js';
import { freePort, StopWaiting, waitFor } from './ports.js';
import { startProcess, type ManagedProcess } from './process.js';

const execFileAsync = promisify(execFile);

/** Where hack/lib/install-keycloak.sh put the distribution and which JDK it picked. */
export interface KeycloakPaths {
  version: string;
  home: string;
  kcSh: string;
  javaHome: string;
}

export function keycloakPaths(): KeycloakPaths {
  const version = versions().KEYCLOAK_VERSION;
  if (!version) throw new Error('KEYCLOAK_VERSION is missing from hack/lib/versions.sh');
  const home = join(cacheDir(), `keycloak-${version}`);
  const kcSh = join(home, 'bin', 'kc.sh');
  const javaHomeFile = join(home, 'aiplane-java-home');
  if (!existsSync(join(home, 'aiplane-build')) || !existsSync(javaHomeFile)) {
    throw new Error(`Keycloak ${version} is not installed in ${home}: run make setup`);
  }
  return { version, home, kcSh, javaHome: readFileSync(javaHomeFile, 'utf8').trim() };
}

export interface KeycloakOptions {
  /** Throwaway directory for this instance (transaction log, temporary files). */
  dir: string;
  /** keycloak.log goes here. */
  logDir: string;
  /** Database created in the given PostgreSQL for this instance (default `keycloak`). */
  database?: string;
}

function secret(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * A real Keycloak server (the Maven Central distribution, built once for PostgreSQL by
 * hack/lib/install-keycloak.sh) on its own loopback port, its data in a fresh database of
 * the run's PostgreSQL, a random bootstrap admin password, logs in `logDir/keycloak.log`.
 *
 * A fresh database normally costs Keycloak ten seconds of schema migrations; the first start
 * saves the migrated, still empty schema next to the distribution, and later starts load it
 * with psql in a fraction of a second.
 */
export class LocalKeycloak {
  /** The master realm's bootstrap admin (console login; admin REST). */
  readonly admin = { username: 'kcadmin', password: secret() };
  private readonly passwords = Object.fromEntries(DEV_USERS.map((u) => [u, secret()])) as Record<
    DevUserName,
    string
  >;
  private proc?: ManagedProcess;
  private port = 0;
  private bootstrapped?: KeycloakInfo;
  private readonly database: string;

  constructor(private readonly opts: KeycloakOptions) {
    this.database = opts.database ?? 'keycloak';
  }

  get url(): string {
    if (!this.port) throw new Error('keycloak not started');
    return `http://127.0.0.1:${this.port}`;
  }

  get logFile(): string {
    return join(this.opts.logDir, 'keycloak.log');
  }

  /** Realm, clients, users and their secrets; set by bootstrap(). */
  get info(): KeycloakInfo {
    if (!this.bootstrapped) throw new Error('keycloak not bootstrapped');
    return this.bootstrapped;
  }

  async start(pg: PostgresInfo): Promise<void> {
    const paths = keycloakPaths();
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    mkdirSync(this.opts.logDir, { recursive: true });
    const snapshot = join(paths.home, `aiplane-schema-pg${postgresInstall().version}.sql`);
    await this.createDatabase(pg, existsSync(snapshot) ? snapshot : undefined);

    this.port = await freePort();
    const env: NodeJS.ProcessEnv = {};
    // Nothing in the caller's environment that kc.sh, Keycloak or Quarkus read may change
    // how this instance runs (KC_*, QUARKUS_*, JAVA*, DEBUG*, PRINT_ENV).
    for (const [k, v] of Object.entries(process.env)) {
      if (!/^(KC_|QUARKUS_|JAVA|DEBUG|PRINT_ENV$)/.test(k)) env[k] = v;
    }
    Object.assign(env, {
      JAVA_HOME: paths.javaHome,
      JAVA: join(repoRoot, 'hack', 'lib', 'java-pdeathsig.sh'),
      JAVA_OPTS_APPEND: [
        // C1 only: starts in about half the time on two cores; plenty fast for tests.
        '-XX:TieredStopAtLevel=1',
        // Narayana's default process id holds a loopback listening socket open; a UUID does not.
        '-DCoreEnvironmentBean.processImplementationClassName=com.arjuna.ats.internal.arjuna.utils.UuidProcessId',
        // A throwaway server never recovers transactions; keep its object store out of the cache.
        '-Dquarkus.transaction-manager.enable-recovery=false',
        `-Dquarkus.transaction-manager.object-store.directory=${join(this.opts.dir, 'transaction-logs')}`,
        `-Djava.io.tmpdir=${join(this.opts.dir, 'tmp')}`,
      ].join(' '),
      KC_DB_URL: `jdbc:postgresql://${pg.host}:${pg.port}/${this.database}`,
      KC_DB_USERNAME: pg.user,
      KC_DB_PASSWORD: pg.password,
      KC_BOOTSTRAP_ADMIN_USERNAME: this.admin.username,
      KC_BOOTSTRAP_ADMIN_PASSWORD: this.admin.password,
    });
    mkdirSync(join(this.opts.dir, 'tmp'), { recursive: true });
    this.proc = startProcess({
      name: 'keycloak',
      command: paths.kcSh,
      args: [
        'start',
        '--optimized',
        '--http-enabled=true',
        '--http-host=127.0.0.1',
        `--http-port=${this.port}`,
        `--hostname=${this.url}`,
        '--cache=local',
        '--log-console-color=false',
      ],
      env,
      cwd: this.opts.dir,
      logFile: this.logFile,
    });
    const proc = this.proc;
    await waitFor(
      `keycloak to be ready (log: ${this.logFile})`,
      async () => {
        if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
          throw new StopWaiting(`keycloak exited before it was ready; see ${this.logFile}`);
        }
        return (await fetch(`${this.url}/health/ready`)).ok;
      },
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    if (!existsSync(snapshot)) await this.saveSchema(pg, snapshot);
  }

  /**
   * Creates (or converges) the realm, roles, clients, organization and dev users. Idempotent:
   * a second call changes nothing and answers the same ids and secrets.
   */
  async bootstrap(): Promise<KeycloakInfo> {
    this.bootstrapped = await bootstrapKeycloak({
      url: this.url,
      admin: this.admin,
      passwords: this.passwords,
    });
    return this.bootstrapped;
  }

  async stop(): Promise<void> {
    // kc.sh forwards SIGTERM to the JVM, which shuts down gracefully in about a second.
    await this.proc?.stop('SIGTERM', 20_000);
  }

  private async createDatabase(pg: PostgresInfo, snapshot: string | undefined): Promise<void> {
    await this.psql(pg, 'postgres', ['-c', `CREATE DATABASE ${this.database}`]);
    if (snapshot) await this.psql(pg, this.database, ['--single-transaction', '-f', snapshot]);
  }

  /** Saves the migrated schema plus Liquibase's own bookkeeping (no realm data). */
  private async saveSchema(pg: PostgresInfo, file: string): Promise<void> {
    const dump = (args: string[]) => this.pgTool(pg, 'pg_dump', this.database, args);
    const schema = await dump(['--schema-only', '--no-owner', '--no-privileges']);
    const changelog = await dump([
      '--data-only',
      '--table=public.databasechangelog',
      '--table=public.databasechangeloglock',
    ]);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${schema}\n${changelog}`);
    renameSync(tmp, file);
  }

  private async psql(pg: PostgresInfo, db: string, args: string[]): Promise<void> {
    await this.pgTool(pg, 'psql', db, ['-q', '-X', '-v', 'ON_ERROR_STOP=1', ...args]);
  }

  private async pgTool(pg: PostgresInfo, tool: string, db: string, args: string[]) {
    const bin = join(postgresInstall().bin, tool);
    const conn = ['-h', pg.host, '-p', String(pg.port), '-U', pg.user, '-d', db];
    try {
      const { stdout } = await execFileAsync(bin, [...conn, ...args], {
        env: { ...process.env, PGPASSWORD: pg.password },
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr?.trim();
      throw new Error(`${tool} on database ${db} failed: ${stderr || String(err)}`);
    }
  }
}
