// What the benchmarks report: percentiles of what they measured, and their results.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@aiplane/hack';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}

/** The median, 95th percentile and maximum of some latencies, each rounded to a whole ms. */
export function latencySummary(ms: number[]): { p50: number; p95: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    p50: Math.round(percentile(sorted, 50)),
    p95: Math.round(percentile(sorted, 95)),
    max: Math.round(sorted.at(-1) ?? 0),
  };
}

/** Writes bench/results/<name>.json (machine-readable) and appends a line to the markdown log. */
export function writeResult(name: string, result: Record<string, unknown>): void {
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  let commit = 'uncommitted';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot })
      .toString()
      .trim();
  } catch {
    // not a git checkout
  }
  const record = {
    benchmark: name,
    date: new Date().toISOString(),
    commit,
    machine: {
      cpus: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      // What else ran: latency on 2 cores moves with it (the 1-minute load average at the end).
      loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    },
    ...result,
  };
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
  console.log(JSON.stringify(record, null, 2));
}
