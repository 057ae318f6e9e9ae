import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '@aiplane/lib';

interface Written {
  /** The object's resourceVersion the status was written over. */
  before: string;
  /** The resourceVersion the write made. */
  after: string;
  status: Record<string, unknown>;
}

/**
 * What a controller last wrote to each object's status, so that its own writes cost nothing
 * more (issue 21: ≤ 2 reconciles per object, 0 conflicts):
 *
 * - the watch event of its own write (same resourceVersion as the write answered) is an echo:
 *   it requeues nothing, since the reconcile that wrote it already saw everything it holds;
 * - a reconcile that starts before the watch cache has caught up with the write (the cache still
 *   shows the version the write was made over) is given the object as written (`view`), not a
 *   stale status that would always differ (another write) with a resourceVersion that would
 *   always conflict (a 409 and a requeue).
 *
 * Only the latest write per object is kept; an entry goes when its object is deleted.
 */
export class StatusMemory {
  private readonly written = new Map<string, Written>();

  /** Records a write of `status` over `before` that made version `after`. */
  remember(key: string, before: string, after: string, status: Record<string, unknown>): void {
    this.written.set(key, { before, after, status });
  }

  /** Whether this version of the object is the one this controller's last write made. */
  isEcho(object: KubernetesObject): boolean {
    const rv = object.metadata?.resourceVersion;
    return rv !== undefined && this.written.get(objectKey(object))?.after === rv;
  }

  /**
   * The object as it stands after this controller's last write to it: the cached object itself,
   * unless the cache still shows the version that write was made over (then a copy with the
   * status written and the version the write made; a status write changes nothing else).
   */
  view<T extends KubernetesObject & { status?: unknown }>(cached: T | undefined): T | undefined {
    if (cached === undefined) return undefined;
    const w = this.written.get(objectKey(cached));
    if (w === undefined || cached.metadata?.resourceVersion !== w.before) return cached;
    return {
      ...cached,
      metadata: { ...cached.metadata, resourceVersion: w.after },
      status: w.status,
    };
  }

  forget(key: string): void {
    this.written.delete(key);
  }

  get size(): number {
    return this.written.size;
  }
}
