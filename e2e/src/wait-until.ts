/** Options of `waitUntil`. */
export interface WaitOptions<T> {
  /** Says what is awaited, for the failure message: "tenant e2e-1a2b to be Ready". */
  what: string;
  /** True when `observe`'s value is the wanted one. */
  until: (value: T) => boolean;
  timeoutMs: number;
  intervalMs: number;
  /** How an observation appears in the failure message; default JSON, cut to 2000 chars. */
  describe?: (value: T) => string;
  /** Injected in unit tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Thrown when the deadline passes; names what was awaited and the last observation. */
export class WaitTimeout extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    readonly lastObserved: string,
  ) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}; last observed: ${lastObserved}`);
  }
}

const MAX_DESCRIPTION = 2000;

function describeDefault(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}…` : text;
}

/**
 * Calls `observe` every `intervalMs` until `until` holds for its value, and answers that value.
 * An observation that throws counts as "not yet" (its message becomes the last observation),
 * so a port-forward that is still starting or a 503 does not end the wait. After `timeoutMs`
 * it throws a `WaitTimeout` naming `what` and the last observation. Always observes at least
 * once, even with a zero timeout.
 */
export async function waitUntil<T>(observe: () => Promise<T>, opts: WaitOptions<T>): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const describe = opts.describe ?? describeDefault;
  const deadline = now() + opts.timeoutMs;
  let last = 'nothing (no observation completed)';
  for (;;) {
    try {
      const value = await observe();
      if (opts.until(value)) return value;
      last = describe(value);
    } catch (err) {
      last = `error: ${err instanceof Error ? err.message : String(err)}`;
    }
    const left = deadline - now();
    if (left <= 0) throw new WaitTimeout(opts.what, opts.timeoutMs, last);
    await sleep(Math.min(opts.intervalMs, left));
  }
}
