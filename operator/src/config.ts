import { hostname } from 'node:os';

/** The operator's configuration: read from the environment once, validated, frozen. */
export interface OperatorConfig {
  readonly health: { readonly host: string; readonly port: number };
  readonly logLevel: string;
  readonly leaderElection:
    | { readonly enabled: false }
    | {
        readonly enabled: true;
        readonly namespace: string;
        readonly name: string;
        readonly identity: string;
        readonly leaseDurationSeconds: number;
        readonly renewDeadlineMs: number;
        readonly retryPeriodMs: number;
      };
  readonly shutdownGraceMs: number;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** Thrown with every problem at once, so one start-up names them all. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  string(name: string, fallback: string): string {
    const v = this.env[name];
    return v === undefined || v === '' ? fallback : v;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  oneOf(name: string, fallback: string, allowed: string[]): string {
    const v = this.string(name, fallback);
    if (!allowed.includes(v))
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
    return v;
  }
}

/**
 * Reads AIPLANE_OPERATOR_* variables (and POD_NAME/POD_NAMESPACE from the downward API).
 * The kube client itself is configured by client-node's loadFromDefault (KUBECONFIG or the
 * in-cluster service account).
 */
export function loadOperatorConfig(env: NodeJS.ProcessEnv = process.env): OperatorConfig {
  const r = new Reader(env);
  const health = {
    host: r.string('AIPLANE_OPERATOR_HEALTH_HOST', '127.0.0.1'),
    port: r.int('AIPLANE_OPERATOR_HEALTH_PORT', 8081, 0, 65535),
  };
  const logLevel = r.oneOf('AIPLANE_LOG_LEVEL', 'info', LOG_LEVELS);
  const enabled = r.bool('AIPLANE_OPERATOR_LEADER_ELECTION', true);
  const leaseDurationSeconds = r.int('AIPLANE_OPERATOR_LEASE_DURATION_SECONDS', 15, 2, 300);
  const renewDeadlineMs = r.int('AIPLANE_OPERATOR_RENEW_DEADLINE_MS', 10_000, 500, 299_000);
  const retryPeriodMs = r.int('AIPLANE_OPERATOR_RETRY_PERIOD_MS', 2_000, 100, 60_000);
  if (enabled && renewDeadlineMs >= leaseDurationSeconds * 1000) {
    r.problems.push('AIPLANE_OPERATOR_RENEW_DEADLINE_MS must be shorter than the lease duration');
  }
  if (enabled && retryPeriodMs >= renewDeadlineMs) {
    r.problems.push('AIPLANE_OPERATOR_RETRY_PERIOD_MS must be shorter than the renew deadline');
  }
  const leaderElection = enabled
    ? {
        enabled,
        namespace: r.string(
          'AIPLANE_OPERATOR_LEASE_NAMESPACE',
          r.string('POD_NAMESPACE', 'default'),
        ),
        name: r.string('AIPLANE_OPERATOR_LEASE_NAME', 'aiplane-operator'),
        identity: r.string('POD_NAME', `${hostname()}-${process.pid}`),
        leaseDurationSeconds,
        renewDeadlineMs,
        retryPeriodMs,
      }
    : { enabled };
  const shutdownGraceMs = r.int('AIPLANE_OPERATOR_SHUTDOWN_GRACE_MS', 30_000, 0, 600_000);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze({
    health: Object.freeze(health),
    logLevel,
    leaderElection: Object.freeze(leaderElection),
    shutdownGraceMs,
  });
}
