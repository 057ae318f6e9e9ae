import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { abortableDelay, GuardedWatch } from './guarded-watch.js';
import { listAll } from './kube-request.js';
import { objectKey } from './object-key.js';

/** kubectl's copy of what it last applied: a whole second object, read by nothing here. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops, in place, what no reader of a watch cache uses and what makes up much of an object's
 * size: `managedFields` (server-side apply's bookkeeping, often larger than the spec) and
 * kubectl's last-applied annotation. Done before the object is cached or handed to handlers
 * (issue 21: the operator's memory at 10,000 objects).
 */
export function trimForCache(obj: KubernetesObject): void {
  const m = obj.metadata;
  if (!m) return;
  delete m.managedFields;
  if (m.annotations && LAST_APPLIED in m.annotations) {
    m.annotations = Object.fromEntries(
      Object.entries(m.annotations).filter(([k]) => k !== LAST_APPLIED),
    );
  }
}

export interface InformerHandlers<T> {
  add?: (obj: T) => void;
  update?: (obj: T, old: T) => void;
  delete?: (obj: T) => void;
  /** The informer failed and will restart (relist) after a backoff; for a restart counter. */
  restart?: (error: unknown) => void;
}

/** What controllers need from an informer; {@link ResilientInformer} is the real one. */
export interface InformerLike<T extends KubernetesObject> {
  readonly resource: string;
  on(handlers: InformerHandlers<T>): () => void;
  start(): void;
  stop(): Promise<void>;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
  get(key: string): T | undefined;
  list(namespace?: string): T[];
}

export interface InformerOptions<T extends KubernetesObject = KubernetesObject> {
  kc: KubeConfig;
  /** Collection path, e.g. `/apis/aiplane.io/v1alpha1/tenantlifecycles` or `/api/v1/namespaces/x/secrets`. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Name in logs and the `resource` metric label; defaults to the path. */
  resource?: string;
  /** Backoff between restarts after an error; defaults: base 1 s, max 30 s, jitter 0.2. */
  restartBackoff?: Partial<BackoffOptions>;
  /** List page size (`limit`); default 500. */
  pageSize?: number;
  /** Abort (and restart) a list page that takes longer; default 60 000 ms. */
  listTimeoutMs?: number;
  logger?: Logger;
  /**
   * Drops, in place, more of each object than {@link trimForCache} does: the parts its readers
   * never look at (a Deployment's pod template when only its status and metadata are read), so
   * the cache holds what is used (issue 21: memory at 10,000 objects).
   */
  slim?: (obj: T) => void;
}

/**
 * An informer over client-node's `ListWatch` that survives errors. `ListWatch` relists by
 * itself only on 410 Gone and reconnects on timeouts; any other error leaves it stopped. Here
 * every error starts a fresh list+watch after a capped exponential backoff (reset by a
 * successful list). The cache and the add/update/delete events are this class's own, so a
 * relist emits only real differences (deletes for objects that vanished meanwhile).
 */
export class ResilientInformer<T extends KubernetesObject> implements InformerLike<T> {
  readonly resource: string;
  private readonly cache = new Map<string, T>();
  private readonly handlers = new Set<InformerHandlers<T>>();
  private readonly backoff: BackoffOptions;
  private readonly syncWaiters = new Set<{ resolve: () => void; reject: (e: unknown) => void }>();
  private generation: AbortController | undefined;
  private listWatch: ListWatch<T> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private synced = false;
  private running = false;
  private failures = 0;
  private restartCount = 0;

  constructor(private readonly options: InformerOptions<T>) {
    this.resource = options.resource ?? options.path;
    this.backoff = { baseMs: 1000, maxMs: 30_000, jitter: 0.2, ...options.restartBackoff };
  }

  /** Number of restarts after errors so far. */
  get restarts(): number {
    return this.restartCount;
  }

  on(handlers: InformerHandlers<T>): () => void {
    this.handlers.add(handlers);
    return () => this.handlers.delete(handlers);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.launch();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.generation?.abort();
    const listWatch = this.listWatch;
    this.listWatch = undefined;
    for (const waiter of this.syncWaiters) waiter.reject(new Error(`${this.resource}: stopped`));
    this.syncWaiters.clear();
    await listWatch?.stop();
  }

  /** True once the first list has been applied to the cache (and from then on). */
  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        this.syncWaiters.delete(waiter);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.add(waiter);
    });
  }

  /** The cached object for `namespace/name` (or `name` when cluster-scoped). */
  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(namespace?: string): T[] {
    const all = [...this.cache.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace);
  }

  private launch(): void {
    if (!this.running) return;
    const generation = new AbortController();
    this.generation = generation;
    const { kc, path, labelSelector, fieldSelector } = this.options;
    const listWatch = new ListWatch<T>(
      path,
      new GuardedWatch(kc, generation.signal),
      () => this.relist(generation.signal),
      false,
      labelSelector,
      fieldSelector,
      { delayFn: abortableDelay(generation.signal) },
    );
    listWatch.on('add', (obj) => this.upsert(obj));
    listWatch.on('update', (obj) => this.upsert(obj));
    listWatch.on('delete', (obj) => this.remove(obj));
    listWatch.on('error', (err: unknown) => this.fail(generation, listWatch, err));
    this.listWatch = listWatch;
    listWatch.start().catch((err: unknown) => this.fail(generation, listWatch, err));
  }

  private fail(generation: AbortController, listWatch: ListWatch<T>, error: unknown): void {
    if (generation.signal.aborted || !this.running) return;
    generation.abort();
    void listWatch.stop();
    this.restartCount++;
    const delay = backoffDelay(this.failures++, this.backoff);
    this.options.logger?.warn(
      { err: error, resource: this.resource, restartInMs: Math.round(delay) },
      'watch failed; restarting informer',
    );
    this.emit('restart', error);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.launch();
    }, delay);
  }

  private async relist(signal: AbortSignal): Promise<KubernetesListObject<T>> {
    const { kc, path, labelSelector, fieldSelector, pageSize } = this.options;
    const { items, resourceVersion } = await listAll<T>(kc, {
      path,
      labelSelector,
      fieldSelector,
      pageSize,
      signal,
      pageTimeoutMs: this.options.listTimeoutMs ?? 60_000,
    });
    if (signal.aborted) throw new Error(`${this.resource}: informer generation ended`);
    this.replaceAll(items);
    this.failures = 0;
    this.markSynced();
    return { metadata: { resourceVersion }, items };
  }

  private replaceAll(items: readonly T[]): void {
    const present = new Set(items.map((item) => objectKey(item)));
    for (const [key, old] of [...this.cache]) {
      if (present.has(key)) continue;
      this.cache.delete(key);
      this.emit('delete', old);
    }
    for (const item of items) this.upsert(item);
  }

  private upsert(obj: T): void {
    trimForCache(obj);
    this.options.slim?.(obj);
    const key = objectKey(obj);
    const old = this.cache.get(key);
    const version = obj.metadata?.resourceVersion;
    if (old && version !== undefined && old.metadata?.resourceVersion === version) return;
    this.cache.set(key, obj);
    if (old) this.emit('update', obj, old);
    else this.emit('add', obj);
  }

  private remove(obj: T): void {
    const key = objectKey(obj);
    if (!this.cache.delete(key)) return;
    this.emit('delete', obj);
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const waiter of this.syncWaiters) waiter.resolve();
    this.syncWaiters.clear();
  }

  private emit(event: 'add' | 'delete', obj: T): void;
  private emit(event: 'update', obj: T, old: T): void;
  private emit(event: 'restart', error: unknown): void;
  private emit(event: keyof InformerHandlers<T>, obj: unknown, old?: T): void {
    for (const handlers of this.handlers) {
      try {
        if (event === 'update') handlers.update?.(obj as T, old as T);
        else if (event === 'restart') handlers.restart?.(obj);
        else handlers[event]?.(obj as T);
      } catch (err) {
        this.options.logger?.error(
          { err, resource: this.resource, event },
          'informer handler threw',
        );
      }
    }
  }
}
