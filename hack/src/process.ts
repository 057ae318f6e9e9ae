import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/** A child process of the local control plane, its output captured in a log file. */
export interface ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  readonly child: ChildProcess;
  /** Resolves when the process has exited (for any reason). */
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when the runner exits without stopping us: never leave a process behind.
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this system user (needs root); PostgreSQL refuses to run as root. */
  user?: string;
}

/**
 * Starts a process under `setpriv --pdeathsig KILL`, so it dies with this Node process even
 * when this process is killed with SIGKILL and cannot clean up.
 */
export function startProcess(opts: StartOptions): ManagedProcess {
  installExitHook();
  const wrap = ['--pdeathsig', 'KILL'];
  if (opts.user) wrap.push('--reuid', opts.user, '--regid', opts.user, '--init-groups');
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  const child = spawn('setpriv', [...wrap, '--', opts.command, ...opts.args], {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  live.add(child);
  const exited = once(child, 'exit').then(([code]) => {
    live.delete(child);
    log.end();
    return code as number | null;
  });
  return {
    name: opts.name,
    logFile: opts.logFile,
    child,
    exited,
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Node itself (this process's binary) with `args`, as a managed process. */
function startNode(opts: {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
}): ManagedProcess {
  return startProcess({ ...opts, command: process.execPath });
}

/**
 * A TypeScript entry point of this repository (`entry` relative to the root, e.g.
 * `operator/src/main.ts`), run from source under tsx as its own managed process. `env` is
 * the whole environment the process gets.
 */
export function startFromSource(opts: {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
}): ManagedProcess {
  const { entry, ...rest } = opts;
  return startNode({ ...rest, args: ['--import', 'tsx', join(repoRoot, entry)] });
}

/**
 * A bundled entry point (an `.mjs` file from `bundleEntries`) as its own managed process, its
 * stack traces mapped back to the TypeScript sources. `env` is the whole environment it gets;
 * `nodeArgs` go to Node.js before the file (flags NODE_OPTIONS refuses, like `--cpu-prof`).
 */
export function startBundled(opts: {
  name: string;
  file: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  nodeArgs?: string[];
}): ManagedProcess {
  const { file, nodeArgs = [], ...rest } = opts;
  return startNode({ ...rest, args: ['--enable-source-maps', ...nodeArgs, file] });
}
