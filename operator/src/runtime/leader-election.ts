import { type KubeConfig, V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isConflict } from '@aiplane/lib';
import { coordinationLeaseClient, type LeaseClient } from './lease-client.js';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  /** Unique per process, e.g. the pod name plus a random suffix. */
  identity: string;
  /** How long a lease stays valid without renewal; default 15. */
  leaseDurationSeconds?: number;
  /** Give up leadership when no renewal succeeded for this long; default 10 000. */
  renewDeadlineMs?: number;
  /** Pause between attempts; default 2 000. */
  retryPeriodMs?: number;
}

export interface LeaderElectionCallbacks {
  /** Leadership acquired; `signal` aborts when it ends. Start the workers here. */
  onStartedLeading?: (signal: AbortSignal) => void;
  /** Leadership ended: `lost` (renewal failed; stop writing and exit) or `released` (shutdown). */
  onStoppedLeading?: (reason: 'lost' | 'released') => void;
  /** Another (or this) identity was seen holding the lease. */
  onNewLeader?: (identity: string) => void;
}

export interface LeaderElectorOptions extends LeaderElectionConfig, LeaderElectionCallbacks {
  kc?: KubeConfig;
  /** Injected lease access (tests); defaults to `coordination.k8s.io/v1` through `kc`. */
  leases?: LeaseClient;
  logger?: Logger;
  now?: () => number;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, following client-go: a lease is free
 * when it has no holder or its holder has not renewed for `leaseDurationSeconds` as measured
 * on this process's clock since the record last changed (no cross-node clock comparison).
 * Writes are compare-and-swap on `resourceVersion`; a 409 means another candidate won.
 */
export class LeaderElector {
  private readonly leases: LeaseClient;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly stopping = new AbortController();
  private observed: V1Lease | undefined;
  private observedAt = 0;
  private lastRenewAt = 0;
  private lastContactAt: number;
  private leading = false;
  private lost = false;
  private observedHolder: string | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectorOptions) {
    if (!options.leases && !options.kc) throw new Error('leader election needs kc or leases');
    this.leases = options.leases ?? coordinationLeaseClient(options.kc as KubeConfig);
    this.leaseDurationMs = (options.leaseDurationSeconds ?? 15) * 1000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.lastContactAt = this.now();
    if (!(
      this.leaseDurationMs > this.renewDeadlineMs && this.renewDeadlineMs > this.retryPeriodMs
    )) {
      throw new Error('leader election needs leaseDuration > renewDeadline > retryPeriod');
    }
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last seen on the lease ('' when released). */
  leader(): string | undefined {
    return this.observedHolder;
  }

  /**
   * For readiness: a leader that renewed within the renew deadline, or a candidate that reached
   * the apiserver within a lease duration. False after leadership was lost.
   */
  healthy(): boolean {
    if (this.lost) return false;
    const now = this.now();
    if (this.leading) return now - this.lastRenewAt <= this.renewDeadlineMs + this.retryPeriodMs;
    return now - this.lastContactAt <= this.leaseDurationMs + this.retryPeriodMs;
  }

  /** Campaigns, then leads until renewal fails or `stop` is called. */
  run(): Promise<void> {
    this.running ??= this.campaign();
    return this.running;
  }

  /** Stops campaigning or leading; a leader releases the lease so a successor need not wait. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async campaign(): Promise<void> {
    const stop = this.stopping.signal;
    let acquired = false;
    while (!stop.aborted) {
      acquired = await this.tryAcquireOrRenew(this.renewDeadlineMs);
      if (acquired) break;
      await sleep(this.retryPeriodMs * (1 + 0.2 * Math.random()), stop);
    }
    if (stop.aborted) {
      if (acquired) await this.release();
      return;
    }
    this.leading = true;
    const leadership = new AbortController();
    this.options.logger?.info({ identity: this.options.identity }, 'acquired leadership');
    this.options.onStartedLeading?.(leadership.signal);
    const renewed = await this.renewUntilFailure();
    this.leading = false;
    leadership.abort();
    if (renewed) {
      await this.release();
      this.options.onStoppedLeading?.('released');
    } else {
      this.lost = true;
      this.options.logger?.error({ identity: this.options.identity }, 'lost leadership');
      this.options.onStoppedLeading?.('lost');
    }
  }

  /** Renews every retry period; returns false when no renewal succeeded within the deadline. */
  private async renewUntilFailure(): Promise<boolean> {
    const stop = this.stopping.signal;
    for (;;) {
      await sleep(this.retryPeriodMs, stop);
      if (stop.aborted) return true;
      const deadline = this.lastRenewAt + this.renewDeadlineMs;
      let ok = false;
      while (!ok && !stop.aborted && this.now() < deadline) {
        ok = await this.tryAcquireOrRenew(deadline - this.now());
        if (!ok)
          await sleep(Math.min(this.retryPeriodMs, Math.max(0, deadline - this.now())), stop);
      }
      if (stop.aborted) return true;
      if (!ok) return false;
    }
  }

  private spec(acquiring: boolean, base: V1Lease['spec']): NonNullable<V1Lease['spec']> {
    const now = new V1MicroTime(this.now());
    return {
      ...base,
      holderIdentity: this.options.identity,
      leaseDurationSeconds: this.leaseDurationMs / 1000,
      renewTime: now,
      acquireTime: acquiring ? now : base?.acquireTime,
      leaseTransitions: (base?.leaseTransitions ?? 0) + (acquiring && base ? 1 : 0),
    };
  }

  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const { namespace, name, identity } = this.options;
    const signal = AbortSignal.any([
      this.stopping.signal,
      AbortSignal.timeout(Math.max(1, timeoutMs)),
    ]);
    try {
      const current = await this.leases.read(namespace, name, signal);
      this.lastContactAt = this.now();
      if (!current) {
        const created = await this.leases.create(
          namespace,
          { metadata: { namespace, name }, spec: this.spec(true, undefined) },
          signal,
        );
        this.record(created, true);
        return true;
      }
      this.observe(current);
      const holder = current.spec?.holderIdentity ?? '';
      const durationMs = (current.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== '' && holder !== identity && this.now() < this.observedAt + durationMs) {
        return false;
      }
      const body: V1Lease = { ...current, spec: this.spec(holder !== identity, current.spec) };
      this.record(await this.leases.replace(namespace, name, body, signal), true);
      return true;
    } catch (err) {
      if (!isConflict(err)) {
        this.options.logger?.warn({ err, lease: `${namespace}/${name}` }, 'lease update failed');
      }
      return false;
    }
  }

  /** Notes a lease read; the expiry clock restarts whenever the record changes. */
  private observe(lease: V1Lease): void {
    if (lease.metadata?.resourceVersion !== this.observed?.metadata?.resourceVersion) {
      this.observed = lease;
      this.observedAt = this.now();
    }
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.observedHolder) {
      this.observedHolder = holder;
      if (holder !== '') this.options.onNewLeader?.(holder);
    }
  }

  private record(lease: V1Lease, renewed: boolean): void {
    this.observe(lease);
    if (renewed) this.lastRenewAt = this.now();
  }

  /**
   * Hands the lease back: empty holder, 1 s duration, so a candidate takes it at once. A renew
   * aborted by the shutdown may still have landed, leaving our copy stale: on a conflict the
   * lease is read again and, if still ours, released from the fresh copy.
   */
  private async release(): Promise<void> {
    const { namespace, name, identity } = this.options;
    const signal = AbortSignal.timeout(this.renewDeadlineMs);
    let lease = this.observed;
    for (let attempt = 0; attempt < 3 && !signal.aborted; attempt++) {
      if (!lease || lease.spec?.holderIdentity !== identity) return;
      const now = new V1MicroTime(this.now());
      const body: V1Lease = {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: now,
          acquireTime: now,
        },
      };
      try {
        this.observe(await this.leases.replace(namespace, name, body, signal));
        this.options.logger?.info({ identity }, 'released leadership');
        return;
      } catch (err) {
        if (!isConflict(err)) {
          this.options.logger?.warn(
            { err },
            'could not release the lease; a successor waits for expiry',
          );
          return;
        }
        try {
          lease = await this.leases.read(namespace, name, signal);
        } catch (readErr) {
          this.options.logger?.warn({ err: readErr }, 'could not re-read the lease to release it');
          return;
        }
      }
    }
    this.options.logger?.warn(
      { identity },
      'could not release the lease; a successor waits for expiry',
    );
  }
}
