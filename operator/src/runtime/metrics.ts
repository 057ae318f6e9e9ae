import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type ReconcileResult = 'success' | 'requeue' | 'conflict' | 'error';

export interface RuntimeMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileDuration: Histogram<'controller' | 'result'>;
  workqueueDepth: Gauge<'controller'>;
  watchRestarts: Counter<'resource'>;
  watchEvents: Counter<'controller' | 'resource' | 'event' | 'outcome'>;
}

/** What a watch event did: queued its keys, or nothing (an echo of an own write, no change read). */
export type WatchEventOutcome = 'queued' | 'echo' | 'unchanged';

/**
 * The metric `name` already registered in `registry`, or the one `create` makes for it there:
 * several controllers share one registry, so a metric is reused rather than registered twice.
 */
function metric<M>(
  registry: Registry,
  name: string,
  create: (common: { name: string; registers: Registry[] }) => M,
): M {
  return (
    (registry.getSingleMetric(name) as M | undefined) ?? create({ name, registers: [registry] })
  );
}

/** The operator runtime's metrics in `registry`, created on first use (see {@link metric}). */
export function runtimeMetrics(registry: Registry): RuntimeMetrics {
  return {
    reconcileTotal: metric(
      registry,
      'aiplane_reconcile_total',
      (common) =>
        new Counter({
          ...common,
          help: 'Reconciles by controller and result (success, requeue, conflict, error).',
          labelNames: ['controller', 'result'],
        }),
    ),
    reconcileDuration: metric(
      registry,
      'aiplane_reconcile_duration_seconds',
      (common) =>
        new Histogram({
          ...common,
          help: 'Reconcile duration by controller and result.',
          labelNames: ['controller', 'result'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        }),
    ),
    workqueueDepth: metric(
      registry,
      'aiplane_workqueue_depth',
      (common) =>
        new Gauge({
          ...common,
          help: 'Keys waiting in the work queue, by controller.',
          labelNames: ['controller'],
        }),
    ),
    watchRestarts: metric(
      registry,
      'aiplane_watch_restarts_total',
      (common) =>
        new Counter({
          ...common,
          help: 'Informer restarts after a list or watch error, by resource.',
          labelNames: ['resource'],
        }),
    ),
    watchEvents: metric(
      registry,
      'aiplane_watch_events_total',
      (common) =>
        new Counter({
          ...common,
          help: 'Watch events a controller received, by resource, event (add, update, delete) and outcome (queued; echo: the event of its own write; unchanged: nothing the reconcile reads changed).',
          labelNames: ['controller', 'resource', 'event', 'outcome'],
        }),
    ),
  };
}
