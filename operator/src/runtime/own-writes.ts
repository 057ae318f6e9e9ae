import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '@aiplane/lib';

/**
 * The versions this controller's own writes made, per object of one kind: the watch event of
 * such a write is an echo, and requeues nothing (the reconcile that wrote it had the object as
 * stored, from the write's answer). Only the latest write per object is kept; an entry goes
 * when its object is deleted.
 */
export class OwnWrites {
  private readonly versions = new Map<string, string>();

  /** Records the object a write answered (as stored, with its new resourceVersion). */
  remember(stored: KubernetesObject): void {
    const rv = stored.metadata?.resourceVersion;
    if (rv !== undefined) this.versions.set(objectKey(stored), rv);
  }

  /** Whether this version of the object is the one this controller's last write made. */
  isEcho(object: KubernetesObject): boolean {
    const rv = object.metadata?.resourceVersion;
    return rv !== undefined && this.versions.get(objectKey(object)) === rv;
  }

  forget(object: KubernetesObject): void {
    this.versions.delete(objectKey(object));
  }

  get size(): number {
    return this.versions.size;
  }
}
