// Messages API overhead: a streaming `POST /anthropic/v1/messages` through the API vs the same
// streaming `POST /v1/chat/completions` sent straight to the OpenAI-compatible backend it
// translates to (the deterministic test backend, streaming a fixed answer with no delay), one
// request at a time, interleaved (A, B, A, B, …) so both see the same machine state. Time to
// first token (the first word of the answer arriving) and total time (the stream's end), with
// the same client code (fetch, keep-alive) on both sides. Real API in process, PostgreSQL
// catalogue, an API key as the vendor's SDK sends it.
import { join } from 'node:path';
import { loadApiConfig, startApi } from '@aiplane/api';
import {
  apiEnv,
  createDatabase,
  freePort,
  passwordGrant,
  startBundled,
  startProcess,
  startOpenAiTestBackend,
  waitFor,
  type LocalEnvironment,
} from '@aiplane/hack';
import { bundleImage } from '../hack/src/image/bundle.js';
import { benchLogger } from './logs.js';
import { cpuMs, cpuPer, type CpuMs } from './proc.js';
import { percentile, writeResult } from './report.js';

const WARM_UP = 200;
const REQUESTS = 500;
/** The backend’s fixed answer: 25 words, so 25 content chunks. */
const ANSWER =
  'Streaming answers arrive word by word so that the caller sees the first token early and the whole text a little later on this machine.';
const FIRST_WORD = ANSWER.split(' ')[0] as string;
const PROMPT = 'Tell me something about streaming, in one sentence.';

interface Timing {
  ttft: number;
  total: number;
}

/** Sends one request and reads its stream to the end: when the first word came, and the end. */
async function timed(url: string, headers: Record<string, string>, body: unknown): Promise<Timing> {
  const start = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let seen = '';
  let ttft = NaN;
  for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (Number.isNaN(ttft)) {
      seen += decoder.decode(piece, { stream: true });
      if (seen.includes(FIRST_WORD)) ttft = performance.now() - start;
    }
  }
  if (Number.isNaN(ttft)) throw new Error(`${url}: the answer never came: ${seen.slice(0, 300)}`);
  return { ttft, total: performance.now() - start };
}

const ms = (v: number) => Math.round(v * 1000) / 1000;
function summary(v: number[]): { p50: number; p90: number; p99: number } {
  const sorted = [...v].sort((x, y) => x - y);
  return {
    p50: ms(percentile(sorted, 50)),
    p90: ms(percentile(sorted, 90)),
    p99: ms(percentile(sorted, 99)),
  };
}

/** Both sides, interleaved: warm-up, then REQUESTS of each; the percentiles and what was added. */
async function compare(direct: () => Promise<Timing>, viaApi: () => Promise<Timing>) {
  const { direct: d, others } = await interleaved(direct, { api: viaApi });
  return added(d, others.api as Timing[]);
}

/**
 * Each side in turn (direct, then each other), warm-up first; every side's timings, and the CPU
 * each process in `pids` used per request while they were taken (it does not depend on what
 * else runs on the machine, as latency does).
 */
async function interleaved(
  direct: () => Promise<Timing>,
  sides: Record<string, () => Promise<Timing>>,
  pids: Record<string, number> = {},
): Promise<{
  direct: Timing[];
  others: Record<string, Timing[]>;
  cpuPerRequestMs: Record<string, CpuMs>;
}> {
  const names = Object.keys(sides);
  const run = async (keep: boolean, d: Timing[], others: Record<string, Timing[]>) => {
    const t = await direct();
    if (keep) d.push(t);
    for (const name of names) {
      const o = await (sides[name] as () => Promise<Timing>)();
      if (keep) (others[name] ??= []).push(o);
    }
  };
  const d: Timing[] = [];
  const others: Record<string, Timing[]> = {};
  for (let i = 0; i < WARM_UP; i++) await run(false, d, others);
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
  for (let i = 0; i < REQUESTS; i++) await run(true, d, others);
  const cpuPerRequestMs = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, cpuPer(before[k] as CpuMs, cpuMs(pid), REQUESTS)]),
  );
  return { direct: d, others, cpuPerRequestMs };
}

/** The percentiles of both sides and what the second added at p50. */
function added(d: Timing[], a: Timing[]) {
  const of = (t: Timing[], k: keyof Timing) => t.map((x) => x[k]);
  const ttft = { direct: summary(of(d, 'ttft')), api: summary(of(a, 'ttft')) };
  const total = { direct: summary(of(d, 'total')), api: summary(of(a, 'total')) };
  return {
    timeToFirstTokenMs: { ...ttft, addedAtP50: ms(ttft.api.p50 - ttft.direct.p50) },
    totalMs: { ...total, addedAtP50: ms(total.api.p50 - total.direct.p50) },
  };
}

export async function messagesOverhead(env: LocalEnvironment): Promise<void> {
  const info = env.info();
  const kc = info.keycloak;
  const backend = await startOpenAiTestBackend({ fixedAnswer: ANSWER, models: ['bench-7b'] });
  const databaseUrl = await createDatabase(info, 'aiplane_bench_messages', { fresh: true });
  const environment = {
    ...apiEnv(info, databaseUrl),
    AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
  };
  // As deployed: the API in a process of its own, from the image's compiled bundle.
  const image = join(env.dir, 'bench-image');
  await bundleImage(image);
  const port = await freePort();
  const child = startBundled({
    name: 'bench-messages-api',
    file: join(image, 'api.mjs'),
    env: {
      ...process.env,
      ...environment,
      AIPLANE_API_PORT: String(port),
      AIPLANE_LOG_LEVEL: 'warn',
    },
    logFile: join(env.controlPlane.logDir, 'bench-messages-api-process.log'),
  });
  // And in the benchmark's own process, sharing one event loop with the client and backend.
  const inProcess = await startApi(
    loadApiConfig({ ...environment, AIPLANE_API_PORT: '0' }),
    benchLogger(env.controlPlane.logDir, 'messages-api', 'warn'),
    { kc: env.controlPlane.kubeConfig() },
  );
  // The floor: a minimal Node.js proxy to the same backend, in a process of its own.
  const floorPort = await freePort();
  const floor = startProcess({
    name: 'bench-messages-floor-proxy',
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      join(import.meta.dirname, 'floor-proxy.ts'),
      String(floorPort),
      backend.baseUrl,
    ],
    env: process.env,
    logFile: join(env.controlPlane.logDir, 'bench-messages-floor-proxy.log'),
  });
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  const processUrl = `http://127.0.0.1:${port}`;
  const inProcessUrl = `http://127.0.0.1:${inProcess.port}`;
  try {
    await waitFor('the API process', async () => (await fetch(`${processUrl}/readyz`)).ok);
    await waitFor('the floor proxy', async () => (await fetch(floorUrl)).status > 0);
    const organization = kc.organization.id;
    const admin = (await passwordGrant(kc, kc.users.admin)).access_token;
    const member = (await passwordGrant(kc, kc.users.member)).access_token;
    const post = async (token: string, path: string, body: unknown) => {
      const res = await fetch(`${inProcessUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-aiplane-organization': organization,
        },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    await post(admin, '/v1/models', {
      name: 'bench',
      mode: 'chat',
      base_url: backend.baseUrl,
      backend_model: 'bench-7b',
    });
    const key = (await post(member, '/v1/api-keys', { name: 'bench' })).key as string;

    const viaApi = (apiUrl: string) => () =>
      timed(
        `${apiUrl}/anthropic/v1/messages`,
        {
          'x-api-key': key,
          'anthropic-version': '2023-06-01',
          'x-aiplane-organization': organization,
        },
        {
          model: 'anthropic-model-bench',
          max_tokens: 256,
          stream: true,
          messages: [{ role: 'user', content: PROMPT }],
        },
      );
    // What the API sends the backend for that request (translate-request.ts).
    const backendRequest = (url: string) => () =>
      timed(
        url,
        {},
        {
          model: 'bench-7b',
          messages: [{ role: 'user', content: PROMPT }],
          max_tokens: 256,
          stream: true,
          stream_options: { include_usage: true },
        },
      );

    const direct = backendRequest(`${backend.baseUrl}/chat/completions`);
    const viaFloor = backendRequest(`${floorUrl}/chat/completions`);
    // The API in its own process and the floor proxy in its own, in one interleaved run.
    const {
      direct: d,
      others,
      cpuPerRequestMs,
    } = await interleaved(
      direct,
      { api: viaApi(processUrl), floor: viaFloor },
      { api: child.child.pid as number, floor: floor.child.pid as number },
    );
    const ownProcess = added(d, others.api as Timing[]);
    const floorAdded = added(d, others.floor as Timing[]);
    const sameProcess = await compare(direct, viaApi(inProcessUrl));
    writeResult('messages', {
      requests: REQUESTS,
      warmUp: WARM_UP,
      answerChunks: ANSWER.split(' ').length,
      ...ownProcess,
      cpuPerRequestMs,
      floorProxy: {
        timeToFirstTokenMs: floorAdded.timeToFirstTokenMs,
        totalMs: floorAdded.totalMs,
        apiBeyondTheFloorAtP50: ms(
          ownProcess.timeToFirstTokenMs.addedAtP50 - floorAdded.timeToFirstTokenMs.addedAtP50,
        ),
      },
      apiInTheBenchmarkProcess: sameProcess,
      goal: 'at most 1 ms added at p50 (issue 17)',
      note: 'streaming messages request (X-Api-Key, anthropic-model-<name>) through the API vs the same chat completion sent straight to the OpenAI-compatible test backend (fixed 25-word answer, one chunk per word, no delay); sequential, interleaved, same fetch client; the main figures with the API in a process of its own (as deployed: the image’s compiled bundle, node api.mjs), floorProxy: a minimal Node.js proxy (bench/floor-proxy.ts: node:http, an undici pool, bytes copied; no auth, no translation) in a process of its own, interleaved in the same run, and what the API adds beyond it; cpuPerRequestMs: CPU each process used per request (/proc schedstat), which does not move with the machine’s load as latency does; apiInTheBenchmarkProcess with the API sharing the client’s and backend’s event loop; everything on loopback on the same 2 cores',
    });
  } finally {
    await child.stop();
    await floor.stop();
    await inProcess.close();
    await backend.close();
  }
}
