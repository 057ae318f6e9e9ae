import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { type HealthServer, type InformerLike, startHealthServer } from '@aiplane/lib';
import { type LeaderElectionConfig, LeaderElector } from './leader-election.js';
import type { LeaseClient } from './lease-client.js';
import { runtimeMetrics } from './metrics.js';

/** What the manager drives; {@link Controller} is one. */
export interface ManagedController {
  readonly name: string;
  informers(): InformerLike<KubernetesObject>[];
  hasSynced(): boolean;
  run(): Promise<void>;
  stop(graceMs?: number): Promise<boolean>;
}

export interface ManagerOptions {
  kc: KubeConfig;
  controllers: ManagedController[];
  /** Without it every replica reconciles (fine for one replica and for tests). */
  leaderElection?: LeaderElectionConfig;
  health: { host: string; port: number };
  logger: Logger;
  registry: Registry;
  /** How long in-flight reconciles may take to finish on shutdown; default 30 000 ms. */
  shutdownGraceMs?: number;
  /** Signals that start a graceful stop; default SIGTERM and SIGINT. Tests pass []. */
  signals?: NodeJS.Signals[];
  /** Lease access for tests; defaults to the apiserver through `kc`. */
  leases?: LeaseClient;
}

export type StopReason = 'signal' | 'stopped' | 'lost-leadership';

export interface ManagerHandle {
  /** Port of the health server. */
  port: number;
  /** Resolves once everything has stopped, with why. `lost-leadership` should exit non-zero. */
  done: Promise<StopReason>;
  ready(): boolean;
  isLeader(): boolean;
  stop(): Promise<StopReason>;
}

/**
 * Runs controllers: informers start at once (warm caches, also on standby replicas), workers
 * only while this replica leads. On a signal or `stop()`: stop handing out work, wait for
 * in-flight reconciles (bounded), release the lease, stop informers, close the health server.
 * On lost leadership, workers stop at once (their signal aborts) and `done` resolves.
 */
export async function runManager(options: ManagerOptions): Promise<ManagerHandle> {
  const { controllers, logger } = options;
  const graceMs = options.shutdownGraceMs ?? 30_000;
  const metrics = runtimeMetrics(options.registry);
  const informers = [...new Set(controllers.flatMap((c) => c.informers()))];
  for (const informer of informers) {
    informer.on({ restart: () => metrics.watchRestarts.inc({ resource: informer.resource }) });
    informer.start();
  }

  let stopping: Promise<StopReason> | undefined;
  let resolveDone: (reason: StopReason) => void = () => undefined;
  const done = new Promise<StopReason>((resolve) => (resolveDone = resolve));
  let elector: LeaderElector | undefined;
  let health: HealthServer | undefined;
  let workersStarted = false;

  const startWorkers = () => {
    if (workersStarted || stopping) return;
    workersStarted = true;
    for (const controller of controllers) {
      controller.run().catch((err: unknown) => {
        logger.error({ err, controller: controller.name }, 'controller workers failed');
      });
    }
  };

  const ready = () =>
    stopping === undefined &&
    controllers.every((c) => c.hasSynced()) &&
    (elector === undefined || elector.healthy());

  const shutdown = (reason: StopReason): Promise<StopReason> => {
    stopping ??= (async () => {
      logger.info({ reason }, 'stopping');
      for (const signal of signals) process.off(signal, onSignal);
      const grace = reason === 'lost-leadership' ? 0 : graceMs;
      try {
        const drained = await Promise.all(controllers.map((c) => c.stop(grace)));
        if (drained.includes(false)) logger.warn({ graceMs: grace }, 'reconciles still in flight');
        await elector?.stop();
        await Promise.all(informers.map((i) => i.stop()));
        await health?.close();
        logger.info({ reason }, 'stopped');
      } catch (err) {
        logger.error({ err, reason }, 'error while stopping');
      } finally {
        resolveDone(reason);
      }
      return reason;
    })();
    return stopping;
  };

  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const onSignal = () => void shutdown('signal');
  for (const signal of signals) process.once(signal, onSignal);

  try {
    health = await startHealthServer({
      ...options.health,
      ready,
      registry: options.registry,
      logger,
    });
  } catch (err) {
    await shutdown('stopped');
    throw err;
  }

  if (options.leaderElection) {
    elector = new LeaderElector({
      ...options.leaderElection,
      kc: options.kc,
      leases: options.leases,
      logger,
      onStartedLeading: startWorkers,
      onStoppedLeading: (why) => {
        if (why === 'lost') void shutdown('lost-leadership');
      },
      onNewLeader: (identity) => logger.info({ leader: identity }, 'leader observed'),
    });
    elector.run().catch((err: unknown) => logger.error({ err }, 'leader election failed'));
  } else {
    startWorkers();
  }

  return {
    port: health.port,
    done,
    ready,
    isLeader: () => (elector ? elector.isLeader() : workersStarted && !stopping),
    stop: () => shutdown('stopped'),
  };
}
