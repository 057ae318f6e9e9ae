// `make bench`: starts the local environment once and runs each benchmark (or those named
// on the command line). Results: bench/results/<name>.json.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEnvironment } from '@aiplane/hack';
import { mcpServers } from './mcp-servers.js';
import { runtimeReconcile } from './runtime-reconcile.js';
import { gatewayOverhead } from './gateway.js';
import { messagesOverhead } from './messages.js';
import { collectionSearch } from './collection-search.js';
import { tenantLifecycle } from './tenant-lifecycle.js';

const BENCHMARKS: Record<string, (env: LocalEnvironment) => Promise<void>> = {
  'mcp-servers': (env) => mcpServers(env),
  'runtime-reconcile': (env) => runtimeReconcile(env),
  'tenant-lifecycle': (env) => tenantLifecycle(env),
  gateway: (env) => gatewayOverhead(env),
  messages: (env) => messagesOverhead(env),
  'collection-search': (env) => collectionSearch(env),
};

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(BENCHMARKS);
const unknown = names.filter((n) => !BENCHMARKS[n]);
if (unknown.length > 0) {
  console.error(
    `unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`,
  );
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'aiplane-bench-'));
const env = new LocalEnvironment(dir);
try {
  await env.start();
  for (const name of names) {
    console.log(`== ${name}`);
    await BENCHMARKS[name]?.(env);
  }
} finally {
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}
