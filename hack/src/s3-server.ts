import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryPaths } from './paths.js';
import { freePort, StopWaiting, waitFor } from './ports.js';
import { startProcess, type ManagedProcess } from './process.js';

export interface S3ServerOptions {
  /** Where the server's output goes (appended). */
  logFile: string;
  /** Buckets to create (directories of the served root), empty. */
  buckets: string[];
}

/**
 * A real S3 server on loopback: versitygw (hack/lib/build-versitygw.sh) serving a temporary
 * directory, each bucket a directory of it, each object a file (docs/adr/0038). The S3 blob
 * store's tests run against it.
 */
export interface S3Server {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  region: string;
  /** The root account's keys (the secret is random per server). */
  accessKeyId: string;
  secretAccessKey: string;
  /** The served directory: `<root>/<bucket>/<key>` is an object's file. */
  root: string;
  /**
   * Stops the server (SIGTERM; SIGKILL: dies mid-request), keeping its directory and port (a
   * fault; `start` serves them again).
   */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts the server again after `stop`, on the same port and directory. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

export async function startS3Server(opts: S3ServerOptions): Promise<S3Server> {
  const bin = binaryPaths().versitygw;
  if (!existsSync(bin)) throw new Error(`versitygw is not built at ${bin}; run make setup`);
  const root = mkdtempSync(join(tmpdir(), 'aiplane-s3-'));
  for (const b of opts.buckets) mkdirSync(join(root, b));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKeyId = `aiplane-${randomBytes(4).toString('hex')}`;
  const secretAccessKey = randomBytes(20).toString('hex');
  let proc: ManagedProcess | undefined;
  const start = async () => {
    const p = startProcess({
      name: 'versitygw',
      command: bin,
      args: ['--port', `127.0.0.1:${port}`, '--quiet', 'posix', root],
      logFile: opts.logFile,
      // The keys go in the environment, never on the command line (ps shows it).
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ROOT_ACCESS_KEY_ID: accessKeyId,
        ROOT_SECRET_ACCESS_KEY: secretAccessKey,
      },
    });
    proc = p;
    await waitFor(
      `versitygw on port ${port} (log: ${opts.logFile})`,
      async () => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) {
          throw new StopWaiting(`versitygw exited early; see ${opts.logFile}`);
        }
        // Any S3 answer (an anonymous request is refused with 403) means it serves.
        const res = await fetch(endpoint, { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        return res.status > 0;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  };
  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    await proc?.stop(signal, 10_000);
    proc = undefined;
  };
  try {
    await start();
  } catch (err) {
    await stop('SIGKILL');
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    endpoint,
    region: 'us-east-1',
    accessKeyId,
    secretAccessKey,
    root,
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
