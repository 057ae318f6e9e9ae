/** What a {@link ClaimLoop} is given: how to claim work, do it, and give it back. */
export interface ClaimLoopOptions<T extends { id: string }> {
  /** Items worked at once by this process. */
  concurrency: number;
  /** How often it looks for work besides {@link ClaimLoop.kick}. */
  pollMs: number;
  /** Claims the next item (a lease in the database), or undefined when there is none. */
  claim: () => Promise<T | undefined>;
  /** Works one item until done or `controller` aborts (its reason says why). */
  work: (item: T, controller: AbortController) => Promise<void>;
  /** Gives the items still running back on stop (their work was aborted, `'stopping'`). */
  release: (ids: string[]) => Promise<void>;
  /** A claim or a work that threw: logged by the owner. */
  failed: (err: unknown, id?: string) => void;
}

/**
 * The loop of a worker on database-leased work (model downloads, file processing jobs): it
 * claims items up to its concurrency when kicked or every `pollMs`, runs each with an abort
 * controller, and on stop aborts them with the reason `'stopping'` and releases them.
 */
export class ClaimLoop<T extends { id: string }> {
  private readonly running = new Map<
    string,
    { controller: AbortController; done: Promise<void> }
  >();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly o: ClaimLoopOptions<T>) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for work now (something was just queued, or an item ended). */
  kick(): void {
    if (this.stopped || this.polling) return;
    this.polling = this.poll()
      .catch((err: unknown) => this.o.failed(err))
      .finally(() => {
        this.polling = undefined;
      });
  }

  /** Aborts one running item with `reason`; resolves once its work has ended. */
  async abort(id: string, reason: string): Promise<void> {
    const run = this.running.get(id);
    if (!run) return;
    run.controller.abort(reason);
    await run.done;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.polling;
    const ids = [...this.running.keys()];
    for (const run of this.running.values()) run.controller.abort('stopping');
    await Promise.all([...this.running.values()].map((r) => r.done));
    await this.o.release(ids);
  }

  private async poll(): Promise<void> {
    while (!this.stopped && this.running.size < this.o.concurrency) {
      const item = await this.o.claim();
      if (!item) return;
      const controller = new AbortController();
      const done = this.o
        .work(item, controller)
        .catch((err: unknown) => this.o.failed(err, item.id))
        .finally(() => {
          this.running.delete(item.id);
          this.kick();
        });
      this.running.set(item.id, { controller, done });
    }
  }
}
