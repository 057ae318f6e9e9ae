/** Exponential backoff with subtractive jitter, shared by the work queue, informers and leader election. */
export interface BackoffOptions {
  /** Delay for the first retry, in milliseconds. */
  baseMs: number;
  /** Upper bound for any delay, in milliseconds. */
  maxMs: number;
  /**
   * Fraction (0..1) of the exponential delay that may be shaved off at random, so that many
   * keys failing together do not retry in lockstep. The delay stays within
   * `[d * (1 - jitter), d]` where `d = min(maxMs, baseMs * 2^attempt)`.
   */
  jitter?: number;
}

/**
 * The delay before retry number `attempt` (0 for the first retry).
 * `random` returns a number in [0, 1), like `Math.random`.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.min(attempt, 62));
  const full = Math.min(options.maxMs, options.baseMs * 2 ** exponent);
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0));
  return full * (1 - jitter * random());
}
