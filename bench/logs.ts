// The benchmarks' logs: where their in-process servers write, and what a process's pino log
// complains about.
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@aiplane/lib';

/** A logger named `name`, writing to bench-<name>.log in `logDir`. */
export function benchLogger(
  logDir: string,
  name: string,
  level: 'info' | 'warn',
): ReturnType<typeof createLogger> {
  return createLogger({
    level,
    name,
    destination: createWriteStream(join(logDir, `bench-${name}.log`)),
  });
}

const PINO_LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};

export interface LogProblems {
  warn: number;
  error: number;
  /** The ten most frequent, `<n>× [<level>] <message>`. */
  top: string[];
}

/**
 * Warnings and errors in a (pino, JSON lines) log, grouped by message; `normalize` folds the
 * parts of a message that differ between like entries (names, numbers).
 */
export function logProblems(file: string, normalize: (key: string) => string): LogProblems {
  let warn = 0;
  let error = 0;
  const byMessage = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let entry: { level?: number | string; msg?: string; err?: { message?: string } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      // Not JSON (e.g. a stack trace printed by node): count it as an error line.
      error++;
      const key = `[raw] ${line.slice(0, 160)}`;
      byMessage.set(key, (byMessage.get(key) ?? 0) + 1);
      continue;
    }
    const level =
      typeof entry.level === 'string' ? (PINO_LEVELS[entry.level] ?? 0) : (entry.level ?? 0);
    if (level < 40) continue;
    if (level >= 50) error++;
    else warn++;
    const detail = entry.err?.message ? `: ${entry.err.message.slice(0, 200)}` : '';
    const key = normalize(`[${level >= 50 ? 'error' : 'warn'}] ${entry.msg ?? ''}${detail}`);
    byMessage.set(key, (byMessage.get(key) ?? 0) + 1);
  }
  const top = [...byMessage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([msg, n]) => `${n}× ${msg}`);
  return { warn, error, top };
}

/** Prints the problems of a log, if it has any. */
export function printLogProblems(name: string, file: string, problems: LogProblems): void {
  if (problems.top.length === 0) return;
  console.log(`${name} log ${file}: ${problems.warn} warnings, ${problems.error} errors`);
  for (const p of problems.top) console.log(`  ${p}`);
}
