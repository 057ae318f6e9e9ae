import { type KubeConfig, Watch } from '@kubernetes/client-node';

/** A `Watch` that never leaks: rejections become `done(err)`, and nothing outlives its generation. */
export class GuardedWatch extends Watch {
  constructor(
    kc: KubeConfig,
    private readonly generation: AbortSignal,
  ) {
    super(kc);
  }

  override async watch(...args: Parameters<Watch['watch']>): Promise<AbortController> {
    const done = args[3];
    if (this.generation.aborted) return new AbortController();
    try {
      const controller = await super.watch(...args);
      if (this.generation.aborted) controller.abort();
      return controller;
    } catch (err) {
      done(err);
      return new AbortController();
    }
  }
}

/** A delay that never resolves once `signal` aborts, so a stopped ListWatch stays stopped. */
export function abortableDelay(signal: AbortSignal): (ms: number) => Promise<void> {
  return (ms) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return;
      const onAbort = () => clearTimeout(timer);
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}
