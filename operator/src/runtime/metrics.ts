import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type ReconcileResult = 'success' | 'requeue' | 'conflict' | 'error';

export interface RuntimeMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileDuration: Histogram<'controller' | 'result'>;
  workqueueDepth: Gauge<'controller'>;
  watchRestarts: Counter<'resource'>;
}

function existing<M>(registry: Registry, name: string): M | undefined {
  return registry.getSingleMetric(name) as M | undefined;
}

/**
 * The operator runtime's metrics in `registry`, created on first use. Several controllers share
 * one registry, so a metric already registered there is reused rather than registered twice.
 */
export function runtimeMetrics(registry: Registry): RuntimeMetrics {
  const registers = [registry];
  return {
    reconcileTotal:
      existing(registry, 'aiplane_reconcile_total') ??
      new Counter({
        name: 'aiplane_reconcile_total',
        help: 'Reconciles by controller and result (success, requeue, conflict, error).',
        labelNames: ['controller', 'result'],
        registers,
      }),
    reconcileDuration:
      existing(registry, 'aiplane_reconcile_duration_seconds') ??
      new Histogram({
        name: 'aiplane_reconcile_duration_seconds',
        help: 'Reconcile duration by controller and result.',
        labelNames: ['controller', 'result'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        registers,
      }),
    workqueueDepth:
      existing(registry, 'aiplane_workqueue_depth') ??
      new Gauge({
        name: 'aiplane_workqueue_depth',
        help: 'Keys waiting in the work queue, by controller.',
        labelNames: ['controller'],
        registers,
      }),
    watchRestarts:
      existing(registry, 'aiplane_watch_restarts_total') ??
      new Counter({
        name: 'aiplane_watch_restarts_total',
        help: 'Informer restarts after a list or watch error, by resource.',
        labelNames: ['resource'],
        registers,
      }),
  };
}
