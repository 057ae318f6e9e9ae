// What the benchmarks sample of a running process: its memory from /proc.
import { readFileSync } from 'node:fs';

/** Peak resident memory (VmHWM) and current (VmRSS) of a process, in MiB. */
export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return {
    peakMiB: Math.round(kb('VmHWM') / 102.4) / 10,
    rssMiB: Math.round(kb('VmRSS') / 102.4) / 10,
  };
}

/** VmRSS of a process in MiB ({@link memoryOf}), or undefined once it has gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const { rssMiB } = memoryOf(pid);
    return Number.isFinite(rssMiB) ? rssMiB : undefined;
  } catch {
    return undefined; // no /proc entry any more
  }
}

/** VmRSS of a process sampled every `everyMs` until stop(): the highest and the last seen. */
export interface RssSampler {
  peak(): number;
  last(): number | undefined;
  stop(): void;
}

export function sampleRss(pid: number, everyMs: number): RssSampler {
  let peak = 0;
  let last: number | undefined;
  const timer = setInterval(() => {
    const rss = rssMiB(pid);
    if (rss === undefined) return;
    last = rss;
    peak = Math.max(peak, rss);
  }, everyMs);
  return { peak: () => peak, last: () => last, stop: () => clearInterval(timer) };
}
