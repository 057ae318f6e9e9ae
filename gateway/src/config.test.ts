import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadGatewayConfig } from './config.js';

const env = {
  AIPLANE_DATABASE_URL: 'postgres://u:p@db:5432/aiplane',
  AIPLANE_OIDC_ISSUER: 'http://keycloak:8080/realms/aiplane',
  AIPLANE_IDP_URL: 'http://keycloak:8080',
  AIPLANE_IDP_CLIENT_SECRET: 'x',
  AIPLANE_CREDENTIAL_KEYS: `k1:${randomBytes(32).toString('base64')}`,
};

describe('gateway configuration', () => {
  it('ignores the API’s listen address, even a Service link like AIPLANE_API_PORT=tcp://…', () => {
    const config = loadGatewayConfig({
      ...env,
      AIPLANE_API_HOST: 'not-a-host',
      AIPLANE_API_PORT: 'tcp://10.96.0.5:8080',
      AIPLANE_GATEWAY_HOST: '::',
      AIPLANE_GATEWAY_PORT: '8090',
    });
    assert.deepEqual(
      { ...config.gateway, upstream: undefined },
      { host: '::', port: 8090, metricsPort: 8091, upstream: undefined },
    );
  });

  it('bounds upstream answers by default: connect 10 s, headers 60 s, idle 300 s, 8 MiB buffered', () => {
    assert.deepEqual(loadGatewayConfig(env).gateway.upstream, {
      connectTimeoutMs: 10_000,
      headersTimeoutMs: 60_000,
      idleTimeoutMs: 300_000,
      maxBufferedBytes: 8 * 1024 * 1024,
    });
  });

  it('reads the upstream timeouts and the buffer cap from the environment', () => {
    const config = loadGatewayConfig({
      ...env,
      AIPLANE_GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: '2000',
      AIPLANE_GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '500',
      AIPLANE_GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: '750',
      AIPLANE_GATEWAY_MAX_BUFFERED_BYTES: '1048576',
    });
    assert.deepEqual(config.gateway.upstream, {
      connectTimeoutMs: 2000,
      headersTimeoutMs: 500,
      idleTimeoutMs: 750,
      maxBufferedBytes: 1_048_576,
    });
  });

  it('refuses a zero timeout (no timeout at all) and a buffer cap under 64 KiB, naming each', () => {
    assert.throws(
      () =>
        loadGatewayConfig({
          ...env,
          AIPLANE_GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '0',
          AIPLANE_GATEWAY_MAX_BUFFERED_BYTES: '1024',
        }),
      (err: Error) =>
        /AIPLANE_GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS must be an integer from 100/.test(
          err.message,
        ) && /AIPLANE_GATEWAY_MAX_BUFFERED_BYTES must be an integer from 65536/.test(err.message),
    );
  });

  it('refuses a metrics port equal to the public one', () => {
    assert.throws(
      () =>
        loadGatewayConfig({
          ...env,
          AIPLANE_GATEWAY_PORT: '9000',
          AIPLANE_GATEWAY_METRICS_PORT: '9000',
        }),
      /AIPLANE_GATEWAY_METRICS_PORT must differ from AIPLANE_GATEWAY_PORT/,
    );
  });

  it('still refuses a bad gateway port, naming it', () => {
    assert.throws(
      () => loadGatewayConfig({ ...env, AIPLANE_GATEWAY_PORT: 'tcp://10.96.0.6:8090' }),
      /AIPLANE_GATEWAY_PORT must be an integer/,
    );
  });

  it('names the variable, the range and the value of a bad port, and nothing else', () => {
    assert.throws(
      () =>
        loadGatewayConfig({
          ...env,
          AIPLANE_GATEWAY_PORT: '8091.5',
          AIPLANE_GATEWAY_METRICS_PORT: '8090',
        }),
      (err: Error) => {
        assert.equal(
          err.message,
          'invalid configuration:\n  AIPLANE_GATEWAY_PORT must be an integer from 0 to 65535, got "8091.5"',
        );
        return true;
      },
    );
  });

  it('caps 32 requests per user, 256 per organization and 64/1024 sessions unless told otherwise', () => {
    assert.deepEqual(loadGatewayConfig(env).gatewayLimits, {
      requestsPerUser: 32,
      requestsPerOrganization: 256,
      sessionsPerUser: 64,
      sessionsPerOrganization: 1024,
      sessionIdleSeconds: 1800,
    });
  });

  it('reads each cap from its variable', () => {
    const config = loadGatewayConfig({
      ...env,
      AIPLANE_GATEWAY_MAX_REQUESTS_PER_USER: '2',
      AIPLANE_GATEWAY_MAX_REQUESTS_PER_ORGANIZATION: '3',
      AIPLANE_GATEWAY_MAX_SESSIONS_PER_USER: '4',
      AIPLANE_GATEWAY_MAX_SESSIONS_PER_ORGANIZATION: '5',
      AIPLANE_GATEWAY_SESSION_IDLE_SECONDS: '6',
    });
    assert.deepEqual(config.gatewayLimits, {
      requestsPerUser: 2,
      requestsPerOrganization: 3,
      sessionsPerUser: 4,
      sessionsPerOrganization: 5,
      sessionIdleSeconds: 6,
    });
  });

  it('refuses a cap of 0, which would refuse every request', () => {
    assert.throws(
      () => loadGatewayConfig({ ...env, AIPLANE_GATEWAY_MAX_REQUESTS_PER_USER: '0' }),
      /AIPLANE_GATEWAY_MAX_REQUESTS_PER_USER must be an integer from 1 to 1000000, got "0"/,
    );
  });
});
