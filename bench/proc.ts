// What a benchmark reads of another process from /proc: the CPU time it used.
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuMs {
  mainThread: number;
  allThreads: number;
}

/**
 * CPU time a process has used so far, in ms: its main thread (JavaScript) and all its threads
 * (with the garbage collector's and libuv's). Unlike latency, it does not move with what else
 * runs on the machine.
 */
export function cpuMs(pid: number): CpuMs {
  const of = (task: string) =>
    Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  let all = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) all += of(task);
  return { mainThread: of(String(pid)), allThreads: all };
}

/** CPU used between two readings, per unit of work (`n` calls), in ms rounded to the µs. */
export function cpuPer(before: CpuMs, after: CpuMs, n: number): CpuMs {
  const r = (v: number) => Math.round((v / n) * 1000) / 1000;
  return {
    mainThread: r(after.mainThread - before.mainThread),
    allThreads: r(after.allThreads - before.allThreads),
  };
}
