import { backoffDelay, type BackoffOptions } from '@aiplane/lib';

/** Clock and timers, injectable so tests can drive time. */
export interface QueueTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: QueueTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface WorkQueueOptions {
  /** Per-key retry backoff; defaults: base 5 ms, max 5 min, jitter 0.1. */
  backoff?: Partial<BackoffOptions>;
  timers?: QueueTimers;
  /** Random source for jitter, [0, 1). */
  random?: () => number;
  /** Called with the number of keys ready to be handed out whenever it changes. */
  onDepthChange?: (depth: number) => void;
}

export const DEFAULT_QUEUE_BACKOFF: BackoffOptions = { baseMs: 5, maxMs: 5 * 60_000, jitter: 0.1 };

/**
 * A keyed work queue with client-go's guarantees: a key is queued at most once, a key being
 * processed is never handed out again until `done`, and a key added while processing is
 * marked dirty and queued again when `done` is called.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; handle: unknown }>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private readonly drained: Array<() => void> = [];
  private readonly backoff: BackoffOptions;
  private readonly timers: QueueTimers;
  private readonly random: () => number;
  private readonly onDepthChange: ((depth: number) => void) | undefined;
  private shuttingDown = false;
  private lastDepth = 0;

  constructor(options: WorkQueueOptions = {}) {
    this.backoff = { ...DEFAULT_QUEUE_BACKOFF, ...options.backoff };
    this.timers = options.timers ?? systemTimers;
    this.random = options.random ?? Math.random;
    this.onDepthChange = options.onDepthChange;
  }

  /** Keys waiting to be handed out (not counting delayed or in-flight keys). */
  get length(): number {
    return this.queue.length;
  }

  /** Keys currently handed out and not yet `done`. */
  get inFlight(): number {
    return this.processing.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Queues `key` unless it is already queued; a key in flight is re-queued after `done`. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.dispatch();
  }

  /** Queues `key` after `delayMs`. A pending earlier deadline for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.timers.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.timers.clearTimeout(pending.handle);
    const handle = this.timers.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { at, handle });
  }

  /** Queues `key` after its next backoff delay (which grows per failure) and returns that delay. */
  addRateLimited(key: string): number {
    const attempt = this.failures.get(key) ?? 0;
    this.failures.set(key, attempt + 1);
    const delay = backoffDelay(attempt, this.backoff, this.random);
    this.addAfter(key, delay);
    return delay;
  }

  /** Resets the backoff of `key` (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** How many rate-limited re-adds `key` has had since the last `forget`. */
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process, or `undefined` once the queue shuts down. Pair with `done`. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.getters.push(resolve);
      this.dispatch();
    });
  }

  /** Marks `key` as processed; re-queues it when it was added meanwhile. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    if (this.shuttingDown) {
      if (this.processing.size === 0) this.drained.splice(0).forEach((resolve) => resolve());
      return;
    }
    if (this.dirty.has(key)) {
      this.queue.push(key);
      this.dispatch();
    }
  }

  /**
   * Stops handing out keys (queued and delayed keys are dropped, later adds ignored), wakes idle
   * `get` callers with `undefined`, and resolves once every in-flight key is `done`.
   */
  shutdown(): Promise<void> {
    if (!this.shuttingDown) {
      this.shuttingDown = true;
      for (const { handle } of this.delayed.values()) this.timers.clearTimeout(handle);
      this.delayed.clear();
      this.queue.length = 0;
      this.dirty.clear();
      this.getters.splice(0).forEach((resolve) => resolve(undefined));
      this.reportDepth();
    }
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /**
   * Runs `concurrency` workers that take keys and call `handler` until shutdown. A handler that
   * throws gets its key re-queued with backoff; `done` is always called.
   */
  async run(handler: (key: string) => Promise<void>, concurrency = 1): Promise<void> {
    const worker = async (): Promise<void> => {
      for (;;) {
        const key = await this.get();
        if (key === undefined) return;
        try {
          await handler(key);
        } catch {
          this.addRateLimited(key);
        } finally {
          this.done(key);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, () => worker()));
  }

  /** Hands queued keys to waiting `get` callers, then reports the depth. */
  private dispatch(): void {
    while (this.getters.length > 0 && this.queue.length > 0) {
      const key = this.queue.shift() as string;
      const resolve = this.getters.shift() as (key: string | undefined) => void;
      this.dirty.delete(key);
      this.processing.add(key);
      resolve(key);
    }
    this.reportDepth();
  }

  private reportDepth(): void {
    if (this.queue.length === this.lastDepth) return;
    this.lastDepth = this.queue.length;
    this.onDepthChange?.(this.queue.length);
  }
}
