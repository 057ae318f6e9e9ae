import { ConfigError } from '@aiplane/lib';
import { readInt, readServiceConfig, type ServiceConfig } from '@aiplane/lib/service';
import type { GatewayLimits } from './limits.js';

/**
 * The gateway reads the settings it shares with the API (authentication, the credential store
 * and its keys, the MCP settings) plus where it listens: MCP clients on one port, Prometheus
 * on another (`/metrics` is not on the public port). The API's own listen address
 * (AIPLANE_API_HOST/PORT; in a pod maybe a Service link, `tcp://…`) is never read.
 */
export interface GatewayConfig extends ServiceConfig {
  readonly gateway: {
    readonly host: string;
    readonly port: number;
    readonly metricsPort: number;
    /** How the gateway bounds an upstream answer (docs/adr/0010, "Timeouts and caps"). */
    readonly upstream: GatewayUpstreamLimits;
  };
  /** Per-user and per-organization caps, counted per replica (docs/adr/0010, "Caps"). */
  readonly gatewayLimits: GatewayLimits;
}

export interface GatewayUpstreamLimits {
  /** Establishing one TCP (and TLS) connection to an upstream. */
  readonly connectTimeoutMs: number;
  /** From sending the request to the upstream's response headers. */
  readonly headersTimeoutMs: number;
  /** The longest silence between two chunks of an upstream body (an event stream's too). */
  readonly idleTimeoutMs: number;
  /** The most the gateway holds of one answer: a JSON body it filters, or one pending event. */
  readonly maxBufferedBytes: number;
}

const PORT = { min: 0, max: 65535 };
const HOUR_MS = 3_600_000;
const CAP = { min: 1, max: 1_000_000 };

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const problems: string[] = [];
  const shared = readServiceConfig(env, problems);
  const sharedProblems = problems.length;
  const ms = (name: string, fallback: number, max: number): number =>
    readInt(env, name, fallback, { min: 100, max }, problems);
  const gateway = {
    host: env.AIPLANE_GATEWAY_HOST || '127.0.0.1',
    port: readInt(env, 'AIPLANE_GATEWAY_PORT', 8090, PORT, problems),
    metricsPort: readInt(env, 'AIPLANE_GATEWAY_METRICS_PORT', 8091, PORT, problems),
    upstream: Object.freeze({
      connectTimeoutMs: ms('AIPLANE_GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS', 10_000, 300_000),
      headersTimeoutMs: ms('AIPLANE_GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS', 60_000, HOUR_MS),
      idleTimeoutMs: ms('AIPLANE_GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS', 300_000, HOUR_MS),
      maxBufferedBytes: readInt(
        env,
        'AIPLANE_GATEWAY_MAX_BUFFERED_BYTES',
        8 * 1024 * 1024,
        { min: 64 * 1024, max: 1024 * 1024 * 1024 },
        problems,
      ),
    }),
  };
  const gatewayLimits: GatewayLimits = {
    requestsPerUser: readInt(env, 'AIPLANE_GATEWAY_MAX_REQUESTS_PER_USER', 32, CAP, problems),
    requestsPerOrganization: readInt(
      env,
      'AIPLANE_GATEWAY_MAX_REQUESTS_PER_ORGANIZATION',
      256,
      CAP,
      problems,
    ),
    sessionsPerUser: readInt(env, 'AIPLANE_GATEWAY_MAX_SESSIONS_PER_USER', 64, CAP, problems),
    sessionsPerOrganization: readInt(
      env,
      'AIPLANE_GATEWAY_MAX_SESSIONS_PER_ORGANIZATION',
      1024,
      CAP,
      problems,
    ),
    sessionIdleSeconds: readInt(
      env,
      'AIPLANE_GATEWAY_SESSION_IDLE_SECONDS',
      1800,
      { min: 1, max: 7 * 24 * 3600 },
      problems,
    ),
  };
  // Compared only when both were read: a refused value stands for its default here.
  if (
    problems.length === sharedProblems &&
    gateway.port !== 0 &&
    gateway.port === gateway.metricsPort
  ) {
    problems.push('AIPLANE_GATEWAY_METRICS_PORT must differ from AIPLANE_GATEWAY_PORT');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...shared,
    gateway: Object.freeze(gateway),
    gatewayLimits: Object.freeze(gatewayLimits),
  });
}
