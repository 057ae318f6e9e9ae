import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '@aiplane/lib';

interface Pending {
  /** Writes of the object under way (a reconcile writes one object once at a time). */
  writes: number;
  /** Events that came while they were: their version, and who waits for the verdict. */
  events: Array<{ rv: string | undefined; outcome: (echo: boolean) => void }>;
}

/**
 * The versions this controller's own writes made, per object of one kind: the watch event of
 * such a write is an echo, and requeues nothing (the reconcile that wrote it had the object as
 * stored, from the write's answer). The event may come before the write's answer does: an
 * event for an object with a write under way waits for the answer, and is queued then unless
 * it carries the version the write made. Only the latest write per object is kept; an entry
 * goes when its object is deleted.
 */
export class OwnWrites {
  private readonly versions = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();

  /** A write of the object `key` (objectKey) is under way; end it with remember or abandon. */
  begin(key: string): void {
    const p = this.pending.get(key);
    if (p) p.writes += 1;
    else this.pending.set(key, { writes: 1, events: [] });
  }

  /** The write answered the object as stored (with the version it made). */
  remember(stored: KubernetesObject): void {
    const key = objectKey(stored);
    const rv = stored.metadata?.resourceVersion;
    if (rv !== undefined) this.versions.set(key, rv);
    this.end(key, rv);
  }

  /** The write failed: the events that came meanwhile are queued. */
  abandon(key: string): void {
    this.end(key, undefined);
  }

  /**
   * Sorts a watch event: `outcome(true)` for an echo of an own write, `outcome(false)` for
   * anything else; at once, or when the write under way for this object ends.
   */
  classify(object: KubernetesObject, outcome: (echo: boolean) => void): void {
    const key = objectKey(object);
    const rv = object.metadata?.resourceVersion;
    const p = this.pending.get(key);
    if (p) p.events.push({ rv, outcome });
    else outcome(rv !== undefined && this.versions.get(key) === rv);
  }

  /** Whether this version of the object is the one this controller's last write made. */
  isEcho(object: KubernetesObject): boolean {
    const rv = object.metadata?.resourceVersion;
    return rv !== undefined && this.versions.get(objectKey(object)) === rv;
  }

  /** The object `key` was deleted. */
  forget(key: string): void {
    this.versions.delete(key);
  }

  get size(): number {
    return this.versions.size;
  }

  private end(key: string, made: string | undefined): void {
    const p = this.pending.get(key);
    if (!p) return;
    p.writes -= 1;
    if (p.writes > 0) return;
    this.pending.delete(key);
    for (const e of p.events) e.outcome(made !== undefined && e.rv === made);
  }
}
