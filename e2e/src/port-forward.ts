import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { secrets } from './redact.js';

/** What to forward: `kubectl port-forward -n <namespace> <target> <local>:<remote>`. */
export interface ForwardSpec {
  namespace: string;
  /** `svc/keycloak`, `pod/x`, … */
  target: string;
  remotePort: number;
  /** 0 or absent: kubectl picks a free local port. */
  localPort?: number;
}

/** The kubectl arguments of a forward, on 127.0.0.1 only. */
export function portForwardArgs(spec: ForwardSpec): string[] {
  const local = spec.localPort ? String(spec.localPort) : '';
  return [
    'port-forward',
    '--address',
    '127.0.0.1',
    '--namespace',
    spec.namespace,
    spec.target,
    `${local}:${spec.remotePort}`,
  ];
}

const FORWARDING =
  /^Forwarding from (?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):(\d{1,5}) -> \d{1,5}$/;

/**
 * The local port of a kubectl port-forward output line ("Forwarding from 127.0.0.1:43121 ->
 * 8080", or the `[::1]:43121` form); undefined for any other line.
 */
export function parseForwardedPort(line: string): number | undefined {
  const m = FORWARDING.exec(line.trim());
  if (!m) return undefined;
  const port = Number(m[1]);
  return port >= 1 && port <= 65535 ? port : undefined;
}

export interface PortForwardOptions extends ForwardSpec {
  kubectl: string;
  kubeconfig: string;
  /** How long to wait for kubectl's "Forwarding from" line. */
  startTimeoutMs?: number;
  /** Told of restarts (lines are already redacted). */
  log?: (line: string) => void;
}

const MAX_RESTARTS = 20;
const live = new Set<ChildProcess>();
let exitHook = false;

interface Started {
  child: ChildProcess;
  port: number;
  exited: Promise<unknown>;
}

/**
 * A `kubectl port-forward` that stays up: kubectl exits when the pod it picked goes away (a
 * rollout, a restart), so an unexpected exit starts it again on the same local port.
 */
export class PortForward {
  private current: Started;
  private stopped = false;

  private constructor(
    private readonly opts: PortForwardOptions,
    first: Started,
  ) {
    this.current = first;
    void this.supervise();
  }

  /** The local port (the same across restarts). */
  get localPort(): number {
    return this.current.port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.localPort}`;
  }

  static async start(opts: PortForwardOptions): Promise<PortForward> {
    return new PortForward(opts, await spawnForward(opts));
  }

  stop(): void {
    this.stopped = true;
    this.current.child.kill('SIGTERM');
  }

  private async supervise(): Promise<void> {
    const log = this.opts.log ?? (() => undefined);
    const spec = { ...this.opts, localPort: this.current.port };
    let restarts = 0;
    while (!this.stopped) {
      await this.current.exited;
      while (!this.stopped) {
        if (restarts >= MAX_RESTARTS) {
          log(`port-forward ${spec.target}: exited ${restarts} times; giving up`);
          return;
        }
        restarts += 1;
        log(`port-forward ${spec.target}: kubectl exited; restarting on port ${spec.localPort}`);
        await delay(1000);
        if (this.stopped) return;
        try {
          this.current = await spawnForward(spec);
          break;
        } catch (err) {
          log(`port-forward ${spec.target}: ${(err as Error).message}`);
        }
      }
    }
    this.current.child.kill('SIGTERM');
  }
}

async function spawnForward(opts: PortForwardOptions): Promise<Started> {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const child of live) child.kill('SIGKILL');
    });
  }
  const child = spawn(opts.kubectl, portForwardArgs(opts), {
    env: { ...process.env, KUBECONFIG: opts.kubeconfig },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const exited = once(child, 'exit').then(
    () => live.delete(child),
    () => live.delete(child),
  );
  // Both streams are read for the whole life of kubectl, so it never blocks on a full pipe.
  const stderr: string[] = [];
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 50) stderr.shift();
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const timeoutMs = opts.startTimeoutMs ?? 30_000;
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no "Forwarding from" line within ${timeoutMs} ms`));
      }, timeoutMs);
      lines.on('line', (line) => {
        const found = parseForwardedPort(line);
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(
          new Error(`kubectl exited (${child.exitCode ?? child.signalCode}) before forwarding`),
        );
      });
    });
    return { child, port, exited };
  } catch (err) {
    child.kill('SIGKILL');
    const detail = secrets.redact(stderr.join('').trim().slice(-1000));
    const ports = `${opts.localPort ?? ''}:${opts.remotePort}`;
    throw new Error(
      `kubectl port-forward -n ${opts.namespace} ${opts.target} ${ports}: ${(err as Error).message}${detail ? `: ${detail}` : ''}`,
    );
  }
}
