import { execFile } from 'node:child_process';
import { secrets } from './redact.js';

export interface ExecResult {
  stdout: string;
  stderr: string;
}

/** A command that failed; its message holds the (redacted) end of stderr, never stdin. */
export class ExecError extends Error {
  constructor(
    readonly command: string,
    readonly code: number | string | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(
      `${command} failed (${code ?? 'killed'}): ${secrets.redact((stderr.trim() || stdout.trim()).slice(-2000))}`,
    );
  }
}

/**
 * Runs `file args` without a shell, `input` on stdin, and answers its output. The command
 * line in an error is the tool's base name and the arguments (which never carry secrets:
 * secrets go through the Kubernetes API or stdin).
 */
export async function run(
  file: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<ExecResult> {
  const command = [file.split('/').pop() ?? file, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      {
        env: opts.env ?? process.env,
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 10 * 60_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as { code?: number | string }).code ?? err.signal ?? null;
          reject(new ExecError(secrets.redact(command), code, stdout, stderr));
        } else {
          resolve({ stdout, stderr });
        }
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}
