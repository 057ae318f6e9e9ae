import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { loadGatewayConfig, startGateway, type RunningGateway } from '@aiplane/gateway';
import { createLogger } from '@aiplane/lib';
import { apiEnv, type ManagedProcess } from '@aiplane/hack';
import { awaitReady, startTestApi, type TestApi } from './api-helpers.js';
import { environment } from './harness.js';
import { caller, provisionTenant, setMembership, type Call, type Tenant } from './mcp-helpers.js';
import { startOperatorProcess } from './operator-process.js';

export interface TestGateway extends RunningGateway {
  url: string;
}

/**
 * The real gateway, in this process, on the API's database, logging to the run's log directory,
 * ready (its caches synced: it has no read-through for tenants).
 */
export async function startTestGateway(
  api: TestApi,
  name: string,
  env: Record<string, string> = {},
): Promise<TestGateway> {
  const config = loadGatewayConfig({
    ...apiEnv(environment().info(), api.databaseUrl),
    AIPLANE_GATEWAY_PORT: '0',
    AIPLANE_GATEWAY_METRICS_PORT: '0',
    AIPLANE_LOG_LEVEL: 'debug',
    ...env,
  });
  const destination = createWriteStream(join(environment().controlPlane.logDir, `${name}.log`));
  const gateway = await startGateway(config, createLogger({ level: 'debug', name, destination }), {
    kc: environment().controlPlane.kubeConfig(),
  });
  const url = `http://127.0.0.1:${gateway.port}`;
  try {
    await awaitReady(`${url}/readyz`);
  } catch (err) {
    await gateway.close();
    throw err;
  }
  return { ...gateway, url };
}

/** What a gateway suite stands on: API, gateway and operator, a tenant, and its callers. */
export interface GatewayStack {
  api: TestApi;
  gateway: TestGateway;
  operator: ManagedProcess;
  /** Tenant `a`, whose organization `admin` and `member` belong to. */
  a: Tenant;
  admin: Call;
  member: Call;
  /** Ends the memberships and stops what started, in reverse. */
  close(): Promise<void>;
}

/**
 * Starts the API and the gateway (loopback upstreams allowed: test MCP servers run on
 * 127.0.0.1; `gatewayEnv` added to the gateway's environment) and the operator, provisions
 * tenant `a` (`prefix`) and makes `admin` and `member` members of it.
 */
export async function startGatewayStack(
  name: string,
  prefix: string,
  gatewayEnv: Record<string, string> = {},
): Promise<GatewayStack> {
  const loopback = { AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' };
  const api = await startTestApi(`api-${name}`, loopback);
  const gateway = await startTestGateway(api, name, { ...loopback, ...gatewayEnv });
  const operator = startOperatorProcess();
  const close = async (a?: Tenant) => {
    if (a) {
      await setMembership(a.organizationId, 'admin', false);
      await setMembership(a.organizationId, 'member', false);
    }
    await operator.stop();
    await gateway.close();
    await api.close();
  };
  let a: Tenant | undefined;
  try {
    a = await provisionTenant(api.url, prefix);
    await setMembership(a.organizationId, 'admin', true);
    await setMembership(a.organizationId, 'member', true);
    return {
      api,
      gateway,
      operator,
      a,
      admin: caller(api.url, 'admin', a.organizationId),
      member: caller(api.url, 'member', a.organizationId),
      close: () => close(a),
    };
  } catch (err) {
    // A membership added before the failure must not outlive the suite (the dev users are
    // shared by every suite: keycloak.test.ts expects them in acme only).
    await close(a);
    throw err;
  }
}

/** A raw JSON-RPC `initialize` request, as a bare client sends it. */
export function initializeRequest(protocolVersion = '2025-11-25', id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}
