import type { KubeConfig } from '@kubernetes/client-node';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { OperatorConfig } from './config.js';
import type { Logger } from '@aiplane/lib';
import {
  type EventRecorder,
  kubeEventRecorder,
  type ManagedController,
  type ManagerHandle,
  runManager,
} from './runtime/index.js';

/** What every controller factory receives. */
export interface OperatorDeps {
  kc: KubeConfig;
  config: OperatorConfig;
  logger: Logger;
  registry: Registry;
  /** Kubernetes Events, reported by `aiplane-operator` from this instance (the leader identity). */
  events: EventRecorder;
}

export type ControllerFactory = (deps: OperatorDeps) => ManagedController[];

/** Wires configuration, metrics and controllers into the runtime's manager. */
export async function startOperator(opts: {
  kc: KubeConfig;
  config: OperatorConfig;
  logger: Logger;
  controllers: ControllerFactory;
  signals?: NodeJS.Signals[];
}): Promise<ManagerHandle> {
  const { kc, config, logger } = opts;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const le = config.leaderElection;
  const instance = le.enabled ? le.identity : 'aiplane-operator';
  const events = kubeEventRecorder(kc, 'aiplane-operator', instance, logger);
  const controllers = opts.controllers({ kc, config, logger, registry, events });
  return runManager({
    kc,
    controllers,
    leaderElection: le.enabled
      ? {
          namespace: le.namespace,
          name: le.name,
          identity: le.identity,
          leaseDurationSeconds: le.leaseDurationSeconds,
          renewDeadlineMs: le.renewDeadlineMs,
          retryPeriodMs: le.retryPeriodMs,
        }
      : undefined,
    health: config.health,
    logger,
    registry,
    shutdownGraceMs: config.shutdownGraceMs,
    ...(opts.signals ? { signals: opts.signals } : {}),
  });
}
