// Gateway overhead: `tools/call` through the MCP gateway vs directly to the same upstream (an
// SDK server on loopback), with the same SDK client code, in interleaved rounds so both see
// the same machine state. The gateway runs as deployed: its own process, from the image's
// compiled bundle (node gateway.mjs). Real API (in process, for the set-up only), Keycloak
// token, PostgreSQL credential store. Latency per call (sequential); throughput with 1, 16
// and 64 clients (one SDK client, so one MCP session, each); the gateway's CPU per call
// (/proc schedstat: it does not move with the machine's load as latency does); its memory
// per open SSE session (GET streams held open).
//
// AIPLANE_BENCH_GATEWAY_CPU_PROF=<dir>: the gateway process writes a V8 CPU profile there
// (node --cpu-prof) when it stops.
import { once } from 'node:events';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { API_VERSION, tenantNamespace } from '@aiplane/crds';
import { loadApiConfig, startApi } from '@aiplane/api';
import { kubeRequest } from '@aiplane/lib';
import {
  apiEnv,
  createDatabase,
  freePort,
  initializeRequest,
  passwordGrant,
  startBundled,
  startMcpTestServer,
  waitFor,
  type LocalEnvironment,
} from '@aiplane/hack';
import { bundleImage } from '../hack/src/image/bundle.js';
import { benchLogger } from './logs.js';
import { cpuMs, cpuPer, type CpuMs } from './proc.js';
import { percentile, writeResult } from './report.js';

const ROUNDS = 10;
const CALLS_PER_ROUND = 200;
const CONCURRENCY = [1, 16, 64] as const;
const THROUGHPUT_ROUNDS = 3;
const THROUGHPUT_CALLS = 600;
/** Open SSE sessions whose memory is measured. */
const SSE_SESSIONS = 500;

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

/** THROUGHPUT_CALLS calls, each client with one in flight: calls per second. */
async function throughput(clients: Client[]): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < THROUGHPUT_CALLS) {
        next++;
        await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      }
    }),
  );
  return THROUGHPUT_CALLS / ((performance.now() - start) / 1000);
}

/** Adds up the CPU a process uses while `work` runs, over any number of runs. */
class CpuMeter {
  private used: CpuMs = { mainThread: 0, allThreads: 0 };
  constructor(private readonly pid: number) {}

  async during<T>(work: () => Promise<T>): Promise<T> {
    const before = cpuMs(this.pid);
    const out = await work();
    const after = cpuMs(this.pid);
    this.used = {
      mainThread: this.used.mainThread + after.mainThread - before.mainThread,
      allThreads: this.used.allThreads + after.allThreads - before.allThreads,
    };
    return out;
  }

  perCall(calls: number): CpuMs {
    return cpuPer({ mainThread: 0, allThreads: 0 }, this.used, calls);
  }
}

const ms = (v: number) => Math.round(v * 1000) / 1000;
const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)] as number;

/**
 * A process's memory after a full garbage collection, asked over its inspector (it runs with
 * `--inspect`): what it holds, not the garbage it happens to carry.
 */
async function memoryAfterGc(inspectPort: number): Promise<{ rss: number; heapUsed: number }> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0]?.webSocketDebuggerUrl ?? '');
  await once(ws, 'open');
  const answers = new Map<number, (result: unknown) => void>();
  ws.on('message', (m: Buffer) => {
    const { id, result } = JSON.parse(m.toString()) as { id: number; result: unknown };
    answers.get(id)?.(result);
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      answers.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    // Three rounds, a moment apart: what waits for a finalizer (undici ties a fetch's signal
    // to a FinalizationRegistry) goes only in the collection after the one that found it.
    for (let i = 0; i < 3; i++) {
      await call('HeapProfiler.collectGarbage');
      await new Promise((r) => setTimeout(r, 200));
    }
    const answer = (await call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } };
    return JSON.parse(answer.result.value) as { rss: number; heapUsed: number };
  } finally {
    ws.close();
  }
}

/**
 * Opens `n` MCP sessions through the gateway by hand (initialize, initialized, then a GET
 * event stream held open) and answers the gateway's memory (after a full collection) per open
 * stream.
 */
async function memoryPerSseSession(
  url: string,
  authorization: string,
  inspectPort: number,
  n: number,
) {
  const headers = {
    authorization,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
  };
  const streams: AbortController[] = [];
  const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
  const before = await memoryAfterGc(inspectPort);
  try {
    for (let i = 0; i < n; i++) {
      const init = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(initializeRequest('2025-06-18')),
      });
      const session = init.headers.get('mcp-session-id');
      await init.text();
      if (!init.ok || session === null) throw new Error(`initialize: ${init.status}`);
      const withSession = {
        ...headers,
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      };
      const initialized = await fetch(url, {
        method: 'POST',
        headers: withSession,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      await initialized.text();
      const abort = new AbortController();
      streams.push(abort);
      // Resolves with the headers: the gateway holds the stream open from then on.
      const stream = await fetch(url, {
        method: 'GET',
        headers: { ...withSession, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      if (stream.status !== 200) throw new Error(`GET stream: ${stream.status}`);
    }
    const after = await memoryAfterGc(inspectPort);
    return {
      sessions: n,
      rssBeforeMiB: mib(before.rss),
      rssAfterMiB: mib(after.rss),
      heapUsedBeforeMiB: mib(before.heapUsed),
      heapUsedAfterMiB: mib(after.heapUsed),
      rssBytesPerSession: Math.round((after.rss - before.rss) / n),
      heapBytesPerSession: Math.round((after.heapUsed - before.heapUsed) / n),
    };
  } finally {
    for (const s of streams) s.abort();
  }
}

export async function gatewayOverhead(env: LocalEnvironment): Promise<void> {
  const info = env.info();
  const kc = info.keycloak;
  const kube = env.controlPlane.kubeConfig();
  const logDir = env.controlPlane.logDir;
  const upstreamToken = `bench-${Date.now()}`;
  const upstream = await startMcpTestServer({ token: upstreamToken });
  const databaseUrl = await createDatabase(info, 'aiplane_bench_gateway', { fresh: true });
  const base = { ...apiEnv(info, databaseUrl), AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' };
  const api = await startApi(
    loadApiConfig({ ...base, AIPLANE_API_PORT: '0' }),
    benchLogger(logDir, 'api', 'warn'),
    { kc: kube },
  );
  // As deployed: the gateway in a process of its own, from the image's compiled bundle.
  const image = join(env.dir, 'bench-image');
  await bundleImage(image);
  const port = await freePort();
  const profileDir = process.env.AIPLANE_BENCH_GATEWAY_CPU_PROF;
  // The inspector (no client until the memory is measured, at the end) collects garbage.
  const inspectPort = await freePort();
  const gateway = startBundled({
    name: 'bench-gateway',
    file: join(image, 'gateway.mjs'),
    env: {
      ...process.env,
      ...base,
      AIPLANE_GATEWAY_PORT: String(port),
      AIPLANE_GATEWAY_METRICS_PORT: String(await freePort()),
      AIPLANE_LOG_LEVEL: 'warn',
      // One member makes every call: room for 64 clients and the SSE sessions.
      AIPLANE_GATEWAY_MAX_REQUESTS_PER_USER: '1000',
      AIPLANE_GATEWAY_MAX_REQUESTS_PER_ORGANIZATION: '1000',
      AIPLANE_GATEWAY_MAX_SESSIONS_PER_USER: '2000',
      AIPLANE_GATEWAY_MAX_SESSIONS_PER_ORGANIZATION: '2000',
    },
    logFile: join(logDir, 'bench-gateway-process.log'),
    nodeArgs: [
      `--inspect=127.0.0.1:${inspectPort}`,
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ],
  });
  const pid = gateway.child.pid as number;
  const clients: Client[] = [];
  try {
    await waitFor(
      'the gateway process',
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
    );
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
    const gatewayUrl = `http://127.0.0.1:${port}/servers/${id}/mcp`;
    // The gateway's own watch may see the new server a moment after the API did.
    await waitFor('the server in the gateway', async () => {
      const c = await connect(gatewayUrl, `Bearer ${member}`).catch(() => undefined);
      await c?.close();
      return c !== undefined;
    });

    const most = Math.max(...CONCURRENCY);
    const direct: Client[] = [];
    const viaGateway: Client[] = [];
    for (let i = 0; i < most; i++) {
      direct.push(await connect(upstream.url, `Bearer ${upstreamToken}`));
      viaGateway.push(await connect(gatewayUrl, `Bearer ${member}`));
    }
    clients.push(...direct, ...viaGateway);
    const [d0, g0] = [direct[0] as Client, viaGateway[0] as Client];
    await latencies(d0, 200); // warm-up (JIT, connection pools, the offered-tools cache)
    await latencies(g0, 200);
    const sequentialCpu = new CpuMeter(pid);
    const d: number[] = [];
    const g: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      d.push(...(await latencies(d0, CALLS_PER_ROUND)));
      g.push(...(await sequentialCpu.during(() => latencies(g0, CALLS_PER_ROUND))));
    }
    const byConcurrency = [];
    for (const n of CONCURRENCY) {
      const cpu = new CpuMeter(pid);
      const tDirect: number[] = [];
      const tGateway: number[] = [];
      await throughput(viaGateway.slice(0, n)); // warm-up at this concurrency
      for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
        tDirect.push(await throughput(direct.slice(0, n)));
        tGateway.push(await cpu.during(() => throughput(viaGateway.slice(0, n))));
      }
      byConcurrency.push({
        clients: n,
        direct: Math.round(median(tDirect)),
        gateway: Math.round(median(tGateway)),
        ratio: Math.round((median(tGateway) / median(tDirect)) * 100) / 100,
        gatewayCpuPerCallMs: cpu.perCall(THROUGHPUT_ROUNDS * THROUGHPUT_CALLS),
      });
    }
    // A token of its own: the member's first may have expired on a slow machine (5 minutes).
    const fresh = (await passwordGrant(kc, kc.users.member)).access_token;
    const memory = await memoryPerSseSession(
      gatewayUrl,
      `Bearer ${fresh}`,
      inspectPort,
      SSE_SESSIONS,
    );
    d.sort((x, y) => x - y);
    g.sort((x, y) => x - y);
    const at16 = byConcurrency.find((t) => t.clients === 16);
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
      gatewayCpuPerCallMs: sequentialCpu.perCall(d.length),
      throughputCallsPerSecond: { ...at16, byConcurrency },
      memoryPerSseSession: memory,
      note: 'tools/call echo over Streamable HTTP (SSE answers) with the official SDK client; the gateway authenticates a Keycloak JWT, looks up the server, finds the member’s credential (PostgreSQL), checks the allowlist and streams the answer; the gateway in a process of its own from the image’s compiled bundle (node gateway.mjs), the clients and the upstream in the benchmark process, everything on loopback on the same 2 cores; gatewayCpuPerCallMs: the gateway process’s CPU per call (/proc schedstat, main thread and all threads), sequential and at each concurrency; memoryPerSseSession: the gateway’s memory (resident, and the JavaScript heap in use; each after a full garbage collection, asked over its inspector) grown per MCP session holding a GET event stream open',
    });
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gateway.stop();
    await api.close();
    await upstream.close();
  }
}
