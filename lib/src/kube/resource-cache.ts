import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../logger.js';
import { ResilientInformer } from './informer.js';
import { kubeRequest, listAll } from './kube-request.js';
import { objectKey } from './object-key.js';

const READ_THROUGH_REUSE_MS = 1_000;

/**
 * A watch cache of one kind for the API, read-your-writes: objects the API just wrote are
 * remembered until the watch delivers them (or something newer), and a miss by uid reads
 * through to the apiserver before the API answers "absent" (each replica has its own cache).
 */
export class ResourceCache<T extends KubernetesObject> {
  private readonly informer: ResilientInformer<T>;
  /** uid → the API's own latest write (or deletion) not yet seen through the watch. */
  private readonly recent = new Map<string, { obj: T; deleted: boolean; at: number }>();
  /** Read-through LISTs in flight or just answered, by path. */
  private readonly reads = new Map<string, { at: number; items: Promise<T[]> }>();
  /** uid → the watch cache's key of that object, kept by the watch's own events. */
  private readonly keyByUid = new Map<string, string>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly path: string,
    logger: Logger,
    private readonly recentTtlMs = 30_000,
  ) {
    this.informer = new ResilientInformer<T>({
      kc,
      path,
      resource: path.split('/').pop() ?? path,
      logger,
    });
    const index = (o: T) => {
      if (o.metadata?.uid) this.keyByUid.set(o.metadata.uid, objectKey(o));
    };
    const unindex = (o: T) => {
      if (o.metadata?.uid) this.keyByUid.delete(o.metadata.uid);
    };
    this.informer.on({
      add: index,
      update: (o, old) => {
        unindex(old);
        index(o);
      },
      delete: unindex,
    });
  }

  start(): void {
    this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.informer.waitForSync(signal);
  }

  /**
   * Calls `handler` for every object that is gone, as the watch sees it: deleted, found missing
   * after a relist, or replaced under its name by another uid (a delete and re-create while the
   * watch was down looks like an update); then `replacement` is the object now there. Answers
   * the unsubscribe function.
   */
  onGone(handler: (gone: T, replacement: T | undefined) => void): () => void {
    return this.informer.on({
      delete: (obj) => handler(obj, undefined),
      update: (obj, old) => {
        if (old.metadata?.uid !== obj.metadata?.uid) handler(old, obj);
      },
    });
  }

  /**
   * Calls `handler` with every object the watch adds or updates (each object of the first LIST
   * and of every relist included). Answers the unsubscribe function.
   */
  onChange(handler: (obj: T) => void): () => void {
    return this.informer.on({ add: handler, update: (obj) => handler(obj) });
  }

  /** Every object as the apiserver has it now (a paged LIST, one consistent snapshot). */
  async listFresh(signal?: AbortSignal): Promise<T[]> {
    return (await listAll<T>(this.kc, { path: this.path, signal })).items;
  }

  /** Records the apiserver's reply to a write, or that `obj` was deleted. */
  remember(obj: T, deleted = false): void {
    this.recent.set(obj.metadata?.uid ?? '', { obj, deleted, at: Date.now() });
  }

  /** Every object, with the API's own recent writes applied over the watch cache. */
  list(namespace?: string): T[] {
    this.expire();
    const byUid = new Map<string, T>();
    for (const o of this.informer.list(namespace)) byUid.set(o.metadata?.uid ?? '', o);
    for (const [uid, { obj, deleted }] of this.recent) {
      if (deleted) byUid.delete(uid);
      else if (namespace === undefined || obj.metadata?.namespace === namespace) {
        const cached = byUid.get(uid);
        if (!cached || newer(obj, cached)) byUid.set(uid, obj);
      }
    }
    return [...byUid.values()];
  }

  /** By uid: cache first (the API's own writes applied, as in `list`), then the apiserver. */
  async byUid(uid: string, namespace?: string): Promise<T | undefined> {
    const hit = this.cached(uid);
    if (hit && (namespace === undefined || hit.metadata?.namespace === namespace)) return hit;
    const path = namespace
      ? this.path.replace(/\/([^/]+)$/, `/namespaces/${namespace}/$1`)
      : this.path;
    const fresh = await this.readThrough(path);
    return fresh.find((o) => o.metadata?.uid === uid);
  }

  /** One object by uid from the watch cache and the API's recent writes, without a copy. */
  private cached(uid: string): T | undefined {
    this.expire();
    const recent = this.recent.get(uid);
    if (recent?.deleted) return undefined;
    const key = this.keyByUid.get(uid);
    const watched = key === undefined ? undefined : this.informer.get(key);
    const current = watched?.metadata?.uid === uid ? watched : undefined;
    if (recent && (!current || newer(recent.obj, current))) return recent.obj;
    return current;
  }

  /**
   * One LIST per path at a time, its answer reused for a second: misses by made-up ids (any
   * caller can send them) cost the apiserver at most one LIST per path per second. Answers
   * older than that are dropped, so no path keeps a copy of its objects.
   */
  private readThrough(path: string): Promise<T[]> {
    const now = Date.now();
    for (const [p, read] of this.reads) {
      if (now - read.at >= READ_THROUGH_REUSE_MS) this.reads.delete(p);
    }
    const hit = this.reads.get(path);
    if (hit) return hit.items;
    const items = kubeRequest<{ items: T[] }>(this.kc, { method: 'GET', path }).then(
      (r) => r.items,
      (err: unknown) => {
        this.reads.delete(path);
        throw err;
      },
    );
    this.reads.set(path, { at: now, items });
    return items;
  }

  private expire(): void {
    const now = Date.now();
    for (const [uid, { at, obj, deleted }] of this.recent) {
      const watched = this.informer.get(objectKey(obj));
      const present = watched?.metadata?.uid === uid;
      const seen = present && watched !== undefined && !newer(obj, watched);
      // An object we deleted, or saw marked for deletion, is caught up once the watch lost it.
      const marked = (obj.metadata as { deletionTimestamp?: unknown } | undefined)
        ?.deletionTimestamp;
      const caughtUp = deleted ? !present : seen || (marked !== undefined && !present);
      if (now - at > this.recentTtlMs || caughtUp) this.recent.delete(uid);
    }
  }
}

/** etcd's resourceVersions grow; the API compares them only to order its own writes. */
function newer(a: KubernetesObject, b: KubernetesObject): boolean {
  return Number(a.metadata?.resourceVersion ?? 0) > Number(b.metadata?.resourceVersion ?? 0);
}
