import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { classifyError } from '@aiplane/lib';
import type { InformerLike } from '@aiplane/lib';
import {
  runtimeMetrics,
  type ReconcileResult,
  type RuntimeMetrics,
  type WatchEventOutcome,
} from './metrics.js';
import { objectKey } from '@aiplane/lib';
import type { OwnWrites } from './own-writes.js';
import type { StatusMemory } from './status-memory.js';
import { WorkQueue, type WorkQueueOptions } from './work-queue.js';

export interface ReconcileContext<T> {
  key: string;
  /**
   * The primary object from the informer cache when the reconcile started (with the status this
   * controller last wrote, while the cache has not caught up: StatusMemory); absent once deleted.
   */
  object: T | undefined;
  /** Aborted when the controller must stop writing (lost leadership, shutdown grace over). */
  signal: AbortSignal;
  /** Child logger carrying `controller` and `key`. */
  logger: Logger;
  /** Rate-limited retries of this key since its last success. */
  attempt: number;
}

export type ReconcileOutcome = { requeueAfter?: number } | void;

export type Reconciler<T> = (key: string, ctx: ReconcileContext<T>) => Promise<ReconcileOutcome>;

/** Another kind whose events requeue primary objects: `toKeys` names the primary keys. */
export interface WatchedSource<S extends KubernetesObject = KubernetesObject> {
  informer: InformerLike<S>;
  toKeys(obj: S): string[];
  /**
   * Whether an update changed anything the reconcile reads (default: every update does). A
   * Deployment's status, for one, changes many times while it rolls out, and most of those
   * changes say nothing new to its owner.
   */
  changed?(obj: S, old: S): boolean;
  /** The versions the reconcile's own writes made: their events requeue nothing. */
  ownWrites?: OwnWrites;
}

export interface ControllerOptions<T extends KubernetesObject> {
  /** Label value for metrics and logs, e.g. `tenantlifecycle`. */
  name: string;
  primary: InformerLike<T>;
  /** Owned (or otherwise related) kinds mapped to primary keys. */
  watches?: WatchedSource[];
  reconcile: Reconciler<T>;
  /**
   * What the reconcile last wrote to each primary's status (writeStatus with it): the watch
   * event of that write requeues nothing, and a deleted primary's entry is dropped.
   */
  statusMemory?: StatusMemory;
  /** Parallel reconciles (different keys only); default 1. */
  concurrency?: number;
  queue?: Omit<WorkQueueOptions, 'onDepthChange'>;
  registry: Registry;
  logger: Logger;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The label selector (`k=v,…`) that matches objects carrying every one of `labels`. */
export function labelSelector(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/**
 * Maps an owned object to the keys of its owners of one kind, from `metadata.ownerReferences`.
 * A namespaced owner shares its dependent's namespace; a cluster-scoped owner's key is its name.
 */
export function ownerKeys(owner: {
  group: string;
  kind: string;
  namespaced: boolean;
}): (obj: KubernetesObject) => string[] {
  return (obj) =>
    (obj.metadata?.ownerReferences ?? [])
      .filter((ref) => ref.kind === owner.kind && groupOf(ref.apiVersion) === owner.group)
      .map((ref) =>
        owner.namespaced && obj.metadata?.namespace
          ? `${obj.metadata.namespace}/${ref.name}`
          : ref.name,
      );
}

/**
 * One controller: informer events become keys in a work queue, workers call `reconcile` per key.
 * A thrown error requeues with per-key backoff unless `classifyError` calls it permanent; a 409
 * requeues quietly; success forgets the backoff and honours `requeueAfter`.
 */
export class Controller<T extends KubernetesObject> {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly primary: InformerLike<T>;
  private readonly watched: WatchedSource[];
  private readonly metrics: RuntimeMetrics;
  private readonly logger: Logger;
  private readonly stopping = new AbortController();
  private workers: Promise<void> | undefined;

  constructor(private readonly options: ControllerOptions<T>) {
    this.name = options.name;
    this.primary = options.primary;
    this.watched = options.watches ?? [];
    this.logger = options.logger.child({ controller: options.name });
    this.metrics = runtimeMetrics(options.registry);
    const depth = this.metrics.workqueueDepth.labels({ controller: options.name });
    depth.set(0);
    this.queue = new WorkQueue({ ...options.queue, onDepthChange: (d) => depth.set(d) });

    const memory = options.statusMemory;
    const count = (resource: string, event: string, outcome: WatchEventOutcome) =>
      this.metrics.watchEvents.inc({ controller: options.name, resource, event, outcome });
    const primaryResource = this.primary.resource;
    const enqueue = (event: string, obj: T) => {
      count(primaryResource, event, 'queued');
      this.queue.add(objectKey(obj));
    };
    this.primary.on({
      add: (obj) => enqueue('add', obj),
      update: (obj) => {
        if (!memory) enqueue('update', obj);
        else
          memory.writes.classify(obj, (echo) =>
            echo ? count(primaryResource, 'update', 'echo') : enqueue('update', obj),
          );
      },
      delete: (obj) => {
        memory?.forget(objectKey(obj));
        enqueue('delete', obj);
      },
    });
    for (const source of this.watched) {
      const { resource } = source.informer;
      const own = source.ownWrites;
      const map = (event: string, ...objs: KubernetesObject[]) => {
        count(resource, event, 'queued');
        // Each owner once: a key added again while its reconcile runs would run it twice.
        for (const k of new Set(objs.flatMap((o) => source.toKeys(o)))) this.queue.add(k);
      };
      /** Maps the event unless it is the echo of an own write (known now or once it ends). */
      const unlessEcho = (event: string, obj: KubernetesObject, ...objs: KubernetesObject[]) => {
        if (!own) map(event, ...objs);
        else
          own.classify(obj, (echo) =>
            echo ? count(resource, event, 'echo') : map(event, ...objs),
          );
      };
      source.informer.on({
        add: (obj) => unlessEcho('add', obj, obj),
        update: (obj, old) => {
          if (source.changed && !source.changed(obj, old)) count(resource, 'update', 'unchanged');
          else unlessEcho('update', obj, old, obj);
        },
        delete: (obj) => {
          own?.forget(objectKey(obj));
          map('delete', obj);
        },
      });
    }
  }

  /** Every informer this controller reads, primary first. */
  informers(): InformerLike<KubernetesObject>[] {
    return [this.primary, ...this.watched.map((s) => s.informer)];
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  /** Starts the workers once every informer has synced; resolves when they have stopped. */
  run(): Promise<void> {
    this.workers ??= (async () => {
      try {
        await Promise.all(this.informers().map((i) => i.waitForSync(this.stopping.signal)));
      } catch {
        return; // stopped before the caches synced
      }
      // Everything in the cache gets one reconcile when workers start (e.g. on becoming leader),
      // whether or not its add event reached this controller.
      for (const obj of this.primary.list()) this.queue.add(objectKey(obj));
      this.logger.info({ concurrency: this.options.concurrency ?? 1 }, 'starting workers');
      await this.queue.run((key) => this.process(key), this.options.concurrency ?? 1);
    })();
    return this.workers;
  }

  /**
   * Stops handing out keys and waits up to `graceMs` for in-flight reconciles, then aborts their
   * signal (at once when `graceMs` is 0, e.g. after losing leadership). Returns true when nothing
   * was left in flight.
   */
  async stop(graceMs = 0): Promise<boolean> {
    const drained = this.queue.shutdown().then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const finished = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    this.stopping.abort(new Error(`controller ${this.name} stopping`));
    return finished;
  }

  private async process(key: string): Promise<void> {
    const started = performance.now();
    const logger = this.logger.child({ key });
    let result: ReconcileResult;
    try {
      const outcome = await this.options.reconcile(key, {
        key,
        object: this.options.statusMemory
          ? this.options.statusMemory.view(this.primary.get(key))
          : this.primary.get(key),
        signal: this.stopping.signal,
        logger,
        attempt: this.queue.numRequeues(key),
      });
      this.queue.forget(key);
      const after = outcome ? outcome.requeueAfter : undefined;
      if (after !== undefined && after >= 0) {
        this.queue.addAfter(key, after);
        result = 'requeue';
      } else {
        result = 'success';
      }
    } catch (err) {
      result = this.handleError(key, err, logger);
    }
    const labels = { controller: this.name, result };
    this.metrics.reconcileTotal.inc(labels);
    this.metrics.reconcileDuration.observe(labels, (performance.now() - started) / 1000);
  }

  private handleError(key: string, err: unknown, logger: Logger): ReconcileResult {
    const classification = classifyError(err);
    if (classification.kind === 'conflict') {
      const retryInMs = Math.round(this.queue.addRateLimited(key));
      logger.debug({ retryInMs, reason: classification.reason }, 'conflict; requeued');
      return 'conflict';
    }
    if (!classification.retryable) {
      this.queue.forget(key);
      logger.error(
        { err, classification },
        'reconcile failed and will not be retried until the object changes',
      );
      return 'error';
    }
    const retryInMs = Math.round(this.queue.addRateLimited(key));
    logger.error({ err, classification, retryInMs }, 'reconcile failed; will retry');
    return 'error';
  }
}
