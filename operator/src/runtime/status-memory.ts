import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '@aiplane/lib';
import { OwnWrites } from './own-writes.js';

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
  /** The versions the status writes made: their watch events are echoes. */
  readonly writes = new OwnWrites();
  private readonly written = new Map<string, Written>();

  /** A status write of the object `key` (objectKey) is under way. */
  begin(key: string): void {
    this.writes.begin(key);
  }

  /** The write over version `before` answered the object as stored. */
  remember(before: string, stored: KubernetesObject & { status?: unknown }): void {
    const after = stored.metadata?.resourceVersion;
    if (after !== undefined) {
      const status = (stored.status ?? {}) as Record<string, unknown>;
      this.written.set(objectKey(stored), { before, after, status });
    }
    this.writes.remember(stored);
  }

  /** The write under way failed, or found the object gone. */
  abandon(key: string): void {
    this.writes.abandon(key);
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

  /** The object `key` was deleted. */
  forget(key: string): void {
    this.written.delete(key);
    this.writes.forget(key);
  }

  get size(): number {
    return this.written.size;
  }
}
