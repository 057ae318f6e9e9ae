// `make bench`: starts the local environment once and runs each benchmark (or those named
// on the command line); those that need no environment run first, without it. Results:
// bench/results/<name>.json, and bench/results/SUMMARY.md over all of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEnvironment } from '@aiplane/hack';
import { embeddingsThroughput } from './embeddings.js';
import { mcpServers } from './mcp-servers.js';
import { runtimeReconcile } from './runtime-reconcile.js';
import { gatewayOverhead } from './gateway.js';
import { messagesOverhead } from './messages.js';
import { collectionSearch } from './collection-search.js';
import { speechBenchmark } from './speech.js';
import { tenantLifecycle } from './tenant-lifecycle.js';
import { writeSummary } from './summary.js';

const BENCHMARKS: Record<string, (env: LocalEnvironment) => Promise<void>> = {
  'mcp-servers': (env) => mcpServers(env),
  // Issue 21's scale: 1,000 at once (goal: every status in ≤ 20 s).
  'mcp-servers-1000': (env) => mcpServers(env, 1000),
  'runtime-reconcile': (env) => runtimeReconcile(env),
  'tenant-lifecycle': (env) => tenantLifecycle(env),
  gateway: (env) => gatewayOverhead(env),
  messages: (env) => messagesOverhead(env),
  'collection-search': (env) => collectionSearch(env),
};
/** Benchmarks of an engine alone (the local model), with no environment. */
const STANDALONE: Record<string, () => Promise<void>> = {
  embeddings: () => embeddingsThroughput(),
  speech: () => speechBenchmark(),
};

const wanted = process.argv.slice(2);
const known = [...Object.keys(STANDALONE), ...Object.keys(BENCHMARKS)];
const names = wanted.length > 0 ? wanted : known;
const unknown = names.filter((n) => !known.includes(n));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
  process.exit(2);
}
for (const name of names.filter((n) => STANDALONE[n])) {
  console.log(`== ${name}`);
  await STANDALONE[name]?.();
}
const withEnvironment = names.filter((n) => BENCHMARKS[n]);
if (withEnvironment.length === 0) {
  writeSummary();
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'aiplane-bench-'));
const env = new LocalEnvironment(dir);
try {
  await env.start();
  for (const name of withEnvironment) {
    console.log(`== ${name}`);
    await BENCHMARKS[name]?.(env);
  }
} finally {
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}
writeSummary();
