import { hostname } from 'node:os';
import { ConfigError } from '@aiplane/lib';
import {
  type NetworkIsolationConfig,
  readNetworkIsolationConfig,
} from './network-policy-config.js';

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
  readonly mcp: {
    /** How often a ready managed server's MCP handshake is re-checked. */
    readonly recheckMs: number;
    readonly handshakeTimeoutMs: number;
    /**
     * LOCAL/TEST ONLY: dial workloads at this host (keeping port and path) instead of their
     * Service name; the local environment has no cluster DNS and no kubelet.
     */
    readonly workloadHost?: string;
  };
  readonly tenants: {
    /** Keycloak for tenant organizations; absent → tenants wait with IdentityProviderNotConfigured. */
    readonly identity?: {
      readonly url: string;
      readonly realm: string;
      readonly clientId: string;
      readonly clientSecret: string;
    };
    /** The shared PostgreSQL cluster for dedicated databases; absent → DatabaseProvisionerNotConfigured. */
    readonly database?: {
      /** Admin connection, e.g. postgres://admin:…@db:5432/postgres. */
      readonly adminUrl: string;
      /** Host and port tenants connect to (default: those of adminUrl). */
      readonly host: string;
      readonly port: number;
    };
    readonly healthCheckMs: number;
    readonly repairDelayMs: number;
    /**
     * RoleBindings written into every tenant namespace: the ClusterRole (the chart's
     * `<release>-api-tenant`, `<release>-operator-tenant`) bound to a ServiceAccount. Empty when
     * nothing is bound (RBAC managed outside the chart, or a local run as cluster admin).
     */
    readonly roleBindings: readonly TenantRoleBinding[];
    /** The NetworkPolicies written in every tenant namespace (docs/adr/0014). */
    readonly networkIsolation: NetworkIsolationConfig;
    /** Fault injection for crash tests only: SIGKILL right after this stage (of this tenant). */
    readonly crashAfter?: {
      readonly stage: 'Namespace' | 'Identity' | 'Database';
      readonly slug?: string;
    };
  };
}

/** One ClusterRole bound to one ServiceAccount in each tenant namespace. */
export interface TenantRoleBinding {
  readonly clusterRole: string;
  readonly serviceAccount: { readonly namespace: string; readonly name: string };
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

export { ConfigError };

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
  const tenants = readTenantConfig(r, env);
  const workloadHost = r.string('AIPLANE_OPERATOR_WORKLOAD_HOST', '');
  const mcp = {
    recheckMs: r.int('AIPLANE_OPERATOR_MCP_RECHECK_SECONDS', 30, 1, 3600) * 1000,
    handshakeTimeoutMs: r.int('AIPLANE_OPERATOR_MCP_HANDSHAKE_TIMEOUT_MS', 5_000, 100, 60_000),
    ...(workloadHost ? { workloadHost } : {}),
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze({
    health: Object.freeze(health),
    logLevel,
    leaderElection: Object.freeze(leaderElection),
    shutdownGraceMs,
    tenants: Object.freeze(tenants),
    mcp: Object.freeze(mcp),
  });
}

function readTenantConfig(r: Reader, env: NodeJS.ProcessEnv): OperatorConfig['tenants'] {
  const idpUrl = r.string('AIPLANE_IDP_URL', '');
  const identity = idpUrl
    ? {
        url: idpUrl.replace(/\/+$/, ''),
        realm: r.string('AIPLANE_IDP_REALM', 'aiplane'),
        clientId: r.string('AIPLANE_OPERATOR_IDP_CLIENT_ID', 'aiplane-operator'),
        clientSecret: r.string('AIPLANE_OPERATOR_IDP_CLIENT_SECRET', ''),
      }
    : undefined;
  if (identity && !identity.clientSecret)
    r.problems.push('AIPLANE_OPERATOR_IDP_CLIENT_SECRET is required with AIPLANE_IDP_URL');
  const adminUrl = env.AIPLANE_TENANT_DB_ADMIN_URL ?? '';
  let database: OperatorConfig['tenants']['database'];
  if (adminUrl) {
    try {
      const u = new URL(adminUrl);
      database = {
        adminUrl,
        host: r.string('AIPLANE_TENANT_DB_HOST', u.hostname),
        port: r.int('AIPLANE_TENANT_DB_PORT', Number(u.port || 5432), 1, 65535),
      };
    } catch {
      r.problems.push('AIPLANE_TENANT_DB_ADMIN_URL must be a postgres:// URL');
    }
  }
  // `<stage>` or `<stage>:<slug>`; test fault injection, never set in a deployment.
  const [stage, slug] = (env.AIPLANE_OPERATOR_CRASH_AFTER ?? '').split(':');
  if (stage && !['Namespace', 'Identity', 'Database'].includes(stage)) {
    r.problems.push(
      'AIPLANE_OPERATOR_CRASH_AFTER must be Namespace, Identity or Database, optionally :<slug>',
    );
  }
  return {
    roleBindings: readRoleBindings(r, env.AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS ?? ''),
    ...(identity ? { identity: Object.freeze(identity) } : {}),
    ...(database ? { database: Object.freeze(database) } : {}),
    healthCheckMs: r.int('AIPLANE_OPERATOR_HEALTH_CHECK_SECONDS', 60, 1, 86_400) * 1000,
    repairDelayMs: r.int('AIPLANE_OPERATOR_REPAIR_DELAY_SECONDS', 10, 0, 3600) * 1000,
    networkIsolation: readNetworkIsolationConfig(
      env,
      r.string('POD_NAMESPACE', 'default'),
      r.problems,
    ),
    ...(stage
      ? {
          crashAfter: {
            stage: stage as 'Namespace' | 'Identity' | 'Database',
            ...(slug ? { slug } : {}),
          },
        }
      : {}),
  };
}

const DNS_NAME = '[a-z0-9]([-a-z0-9.]*[a-z0-9])?';
const BINDING = new RegExp(`^(${DNS_NAME})=(${DNS_NAME})/(${DNS_NAME})$`);

/** `<clusterRole>=<namespace>/<serviceAccount>`, comma-separated. */
function readRoleBindings(r: Reader, raw: string): readonly TenantRoleBinding[] {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const bindings: TenantRoleBinding[] = [];
  for (const entry of entries) {
    const m = BINDING.exec(entry);
    if (!m || !m[1] || !m[3] || !m[5] || entry.length > 400) {
      r.problems.push(
        `AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS entries must be <clusterRole>=<namespace>/<serviceAccount>, got "${entry}"`,
      );
      continue;
    }
    bindings.push(
      Object.freeze({
        clusterRole: m[1],
        serviceAccount: Object.freeze({ namespace: m[3], name: m[5] }),
      }),
    );
  }
  if (new Set(bindings.map((b) => b.clusterRole)).size < bindings.length) {
    r.problems.push('AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS names a ClusterRole twice');
  }
  return Object.freeze(bindings);
}
