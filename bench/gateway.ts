// Gateway overhead: `tools/call` through the MCP gateway vs directly to the same upstream (an
// SDK server on loopback), with the same SDK client code, in interleaved rounds so both see
// the same machine state. Real API and gateway (in process), Keycloak token, PostgreSQL
// credential store. Latency per call (sequential) and throughput (16 calls in flight).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { API_VERSION, tenantNamespace } from '@aiplane/crds';
import { loadApiConfig, startApi } from '@aiplane/api';
import { loadGatewayConfig, startGateway } from '@aiplane/gateway';
import { kubeRequest } from '@aiplane/lib';
import {
  apiEnv,
  createDatabase,
  passwordGrant,
  startMcpTestServer,
  type LocalEnvironment,
} from '@aiplane/hack';
import { benchLogger } from './logs.js';
import { percentile, writeResult } from './report.js';

const ROUNDS = 10;
const CALLS_PER_ROUND = 200;
const CONCURRENCY = 16;
const THROUGHPUT_CALLS = 800;

async function connect(url: string, authorization: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization } },
    }),
  );
  return client;
}

async function latencies(client: Client, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
    out.push(performance.now() - start);
  }
  return out;
}

async function throughput(client: Client): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < THROUGHPUT_CALLS) {
        next++;
        await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      }
    }),
  );
  return THROUGHPUT_CALLS / ((performance.now() - start) / 1000);
}

export async function gatewayOverhead(env: LocalEnvironment): Promise<void> {
  const info = env.info();
  const kc = info.keycloak;
  const kube = env.controlPlane.kubeConfig();
  const logDir = env.controlPlane.logDir;
  const log = (name: string) => benchLogger(logDir, name, 'warn');
  const upstreamToken = `bench-${Date.now()}`;
  const upstream = await startMcpTestServer({ token: upstreamToken });
  const databaseUrl = await createDatabase(info, 'aiplane_bench_gateway', { fresh: true });
  const base = { ...apiEnv(info, databaseUrl), AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' };
  const api = await startApi(loadApiConfig({ ...base, AIPLANE_API_PORT: '0' }), log('api'), {
    kc: kube,
  });
  const gateway = await startGateway(
    loadGatewayConfig({ ...base, AIPLANE_GATEWAY_PORT: '0', AIPLANE_GATEWAY_METRICS_PORT: '0' }),
    log('gateway'),
    {
      kc: kube,
    },
  );
  try {
    // A tenant for the dev organization (acme), recorded as the operator would, so the dev
    // member's token (one organization) acts in it without the operator running.
    const slug = `benchgw${Date.now() % 100000}`;
    await kubeRequest(kube, {
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: tenantNamespace(slug) } },
    });
    await kubeRequest(kube, {
      method: 'POST',
      path: `/apis/${API_VERSION}/tenantlifecycles`,
      body: {
        apiVersion: API_VERSION,
        kind: 'TenantLifecycle',
        metadata: { name: slug },
        spec: { slug, identity: { enabled: true } },
      },
    });
    await kubeRequest(kube, {
      method: 'PATCH',
      path: `/apis/${API_VERSION}/tenantlifecycles/${slug}/status`,
      contentType: 'application/merge-patch+json',
      body: { status: { organizationId: kc.organization.id, phase: 'Ready' } },
    });
    const admin = (await passwordGrant(kc, kc.users.admin)).access_token;
    const member = (await passwordGrant(kc, kc.users.member)).access_token;
    const apiCall = async (user: string, method: string, path: string, body: unknown) => {
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`http://127.0.0.1:${api.port}${path}`, {
          method,
          headers: { authorization: `Bearer ${user}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        // The API's watch cache may not have the tenant's status yet.
        if (res.status === 409 && attempt < 50) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
        return res.status === 204 ? undefined : ((await res.json()) as { id: string });
      }
    };
    const server = await apiCall(admin, 'POST', '/v1/mcp/servers', {
      runtime: 'remote',
      name: 'bench',
      display_name: 'Bench',
      address: upstream.url,
      tool_allowlist: ['echo'],
    });
    const id = server?.id ?? '';
    await apiCall(member, 'PUT', `/v1/mcp/servers/${id}/credential`, { credential: upstreamToken });

    const direct = await connect(upstream.url, `Bearer ${upstreamToken}`);
    const viaGateway = await connect(
      `http://127.0.0.1:${gateway.port}/servers/${id}/mcp`,
      `Bearer ${member}`,
    );
    await latencies(direct, 100); // warm-up (JIT, connection pools, the offered-tools cache)
    await latencies(viaGateway, 100);
    const d: number[] = [];
    const g: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      d.push(...(await latencies(direct, CALLS_PER_ROUND)));
      g.push(...(await latencies(viaGateway, CALLS_PER_ROUND)));
    }
    const tDirect: number[] = [];
    const tGateway: number[] = [];
    for (let round = 0; round < 3; round++) {
      tDirect.push(await throughput(direct));
      tGateway.push(await throughput(viaGateway));
    }
    d.sort((x, y) => x - y);
    g.sort((x, y) => x - y);
    const ms = (v: number) => Math.round(v * 100) / 100;
    const median = (v: number[]) =>
      [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)] as number;
    writeResult('gateway', {
      calls: d.length,
      rounds: ROUNDS,
      latencyMs: {
        direct: { p50: ms(percentile(d, 50)), p99: ms(percentile(d, 99)) },
        gateway: { p50: ms(percentile(g, 50)), p99: ms(percentile(g, 99)) },
        added: {
          p50: ms(percentile(g, 50) - percentile(d, 50)),
          p99: ms(percentile(g, 99) - percentile(d, 99)),
        },
      },
      throughputCallsPerSecond: {
        concurrency: CONCURRENCY,
        direct: Math.round(median(tDirect)),
        gateway: Math.round(median(tGateway)),
        ratio: Math.round((median(tGateway) / median(tDirect)) * 100) / 100,
      },
      note: 'tools/call echo over Streamable HTTP (SSE answers) with the official SDK client; the gateway authenticates a Keycloak JWT, looks up the server, decrypts the member’s credential (PostgreSQL), checks the allowlist and streams the answer; everything on loopback on the same 2 cores, API and gateway in the benchmark process, gateway from TypeScript sources (tsx)',
    });
    await direct.close();
    await viaGateway.close();
  } finally {
    await gateway.close();
    await api.close();
    await upstream.close();
  }
}
