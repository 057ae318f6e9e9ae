import type { KubernetesObject } from '@kubernetes/client-node';
import type { InformerHandlers, InformerLike } from '@aiplane/lib';
import { objectKey } from '@aiplane/lib';

/** An in-memory informer: tests put objects in and events come out, no apiserver involved. */
export class FakeInformer<T extends KubernetesObject> implements InformerLike<T> {
  private readonly objects = new Map<string, T>();
  private readonly handlers = new Set<InformerHandlers<T>>();
  private synced = false;
  private readonly syncWaiters: Array<() => void> = [];
  started = false;

  constructor(readonly resource: string) {}

  on(handlers: InformerHandlers<T>): () => void {
    this.handlers.add(handlers);
    return () => this.handlers.delete(handlers);
  }
  start(): void {
    this.started = true;
  }
  stop(): Promise<void> {
    this.started = false;
    return Promise.resolve();
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.syncWaiters.push(resolve);
      signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  }
  get(key: string): T | undefined {
    return this.objects.get(key);
  }
  list(): T[] {
    return [...this.objects.values()];
  }

  markSynced(): void {
    this.synced = true;
    this.syncWaiters.splice(0).forEach((resolve) => resolve());
  }
  put(obj: T): void {
    const key = objectKey(obj);
    const old = this.objects.get(key);
    this.objects.set(key, obj);
    for (const h of this.handlers) {
      if (old) h.update?.(obj, old);
      else h.add?.(obj);
    }
  }
  remove(key: string): void {
    const old = this.objects.get(key);
    if (!old) return;
    this.objects.delete(key);
    for (const h of this.handlers) h.delete?.(old);
  }
  failWatch(error: unknown): void {
    for (const h of this.handlers) h.restart?.(error);
  }
}
