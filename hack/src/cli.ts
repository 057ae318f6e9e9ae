// Local environment commands for the Makefile: `up`, `down`, `dev` (and `serve`, used by `up`).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalEnvironment, type EnvironmentInfo } from './environment.js';
import { repoRoot } from './paths.js';
import { waitFor } from './ports.js';
import { startDevServices, describeDevServices } from './dev-services.js';
import type { ManagedProcess } from './process.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { dir: { type: 'string', default: join(repoRoot, '.run') } },
});
const command = positionals[0] ?? 'help';
const dir = resolve(values.dir);
const pidFile = join(dir, 'serve.pid');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runningPid(): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  return Number.isInteger(pid) && alive(pid) ? pid : undefined;
}

function describe(info: EnvironmentInfo): string {
  const envJson = join(info.dir, 'env.json');
  const kc = info.keycloak;
  // Secrets stay in env.json (mode 0600); the commands read them from there.
  const read = (expr: string) =>
    `node -e "process.stdout.write(require('${envJson}').keycloak.${expr})"`;
  const token = [
    `${read('users.admin.password')} |`,
    `curl -s ${kc.tokenEndpoint} -d grant_type=password -d client_id=${kc.clients.portal.clientId}`,
    `-d username=${kc.users.admin.username} --data-urlencode password@- |`,
    `node -p "JSON.parse(require('fs').readFileSync(0, 'utf8')).access_token"`,
  ].join(' ');
  return [
    'aiplane local environment is up',
    `  kubeconfig   export KUBECONFIG=${info.kubeconfig}`,
    `  kubectl      ${info.kubectl} get tl,mcps`,
    `  apiserver    ${info.apiserver}`,
    `  postgres     127.0.0.1:${info.postgres.port} (superuser credentials in ${envJson})`,
    `  keycloak     ${kc.url} realm ${kc.realm} (issuer ${kc.issuer})`,
    `  console      ${kc.url}/admin/ user ${kc.admin.username}, password: ${read('admin.password')}`,
    `  dev users    ${Object.keys(kc.users).join(', ')} (passwords in ${envJson}, .keycloak.users)`,
    `  token        TOKEN=$(${token})`,
    `  logs         ${info.logs} and ${join(info.dir, 'logs')}`,
  ].join('\n');
}

/** Starts the environment in this process and keeps it until SIGINT/SIGTERM. */
async function serve(withServices: boolean): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(pidFile, String(process.pid));
  const env = new LocalEnvironment(dir);
  const info = await env.start();
  const children: ManagedProcess[] = withServices ? await startDevServices(info) : [];
  console.log(describe(info));
  if (withServices) console.log(describeDevServices(info));
  console.log('Press Ctrl-C to stop.');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  console.log('stopping…');
  await Promise.allSettled(children.map((c) => c.stop()));
  await env.stop();
  rmSync(pidFile, { force: true });
}

async function up(): Promise<void> {
  if (runningPid()) {
    console.log(`already running (pid ${runningPid()}); make cluster-down first`);
    return;
  }
  mkdirSync(dir, { recursive: true });
  rmSync(join(dir, 'env.json'), { force: true });
  const log = openSync(join(repoRoot, '.run-serve.log'), 'w');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'hack', 'src', 'cli.ts'), 'serve', '--dir', dir],
    {
      detached: true,
      stdio: ['ignore', log, log],
    },
  );
  child.unref();
  await waitFor(
    'the environment to start (log: .run-serve.log)',
    () => {
      if (child.exitCode !== null)
        throw new Error('the environment failed to start; see .run-serve.log');
      return Promise.resolve(existsSync(join(dir, 'env.json')));
    },
    { timeoutMs: 180_000, intervalMs: 500 },
  );
  console.log(describe(JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as EnvironmentInfo));
  console.log('Stop it with: make cluster-down');
}

async function down(): Promise<void> {
  const pid = runningPid();
  if (!pid) {
    console.log('not running');
    return;
  }
  process.kill(pid, 'SIGTERM');
  await waitFor('the environment to stop', () => Promise.resolve(!alive(pid)), {
    timeoutMs: 60_000,
  });
  console.log('stopped');
}

switch (command) {
  case 'serve':
    await serve(false);
    break;
  case 'dev':
    await serve(true);
    break;
  case 'up':
    await up();
    break;
  case 'down':
    await down();
    break;
  default:
    console.log('usage: cli.ts up|down|dev [--dir DIR]');
    process.exitCode = 2;
}
