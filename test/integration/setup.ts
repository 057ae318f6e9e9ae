// Mocha global fixtures: start the real local control plane and services once per run and
// stop them afterwards, leaving no process behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEnvironment } from '@aiplane/hack';
import { createLogger } from '@aiplane/lib';
import { bundleEntries } from '../../hack/src/image/bundle.js';
import { COMPONENTS } from '../../hack/src/image/components.js';
import { setEnvironment } from './harness.js';

const log = createLogger({ name: 'integration' });
let env: LocalEnvironment | undefined;
let failed = false;

export async function mochaGlobalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aiplane-it-'));
  env = new LocalEnvironment(dir);
  const started = Date.now();
  // The suites start the operator as a process some twenty times (and leader-election.test.ts
  // the placeholder operator three times): bundled once (a few seconds, while the environment
  // starts), each start loads one file instead of tsx loading the sources.
  const [up, bundled] = await Promise.allSettled([
    env.start(),
    bundleEntries(
      {
        operator: COMPONENTS.operator.main,
        'placeholder-operator': 'test/integration/fixtures/placeholder-operator.ts',
      },
      join(dir, 'bundle'),
    ),
  ]);
  if (up.status === 'rejected') throw up.reason; // start() stopped what it had started
  if (bundled.status === 'rejected') {
    await env.stop();
    throw bundled.reason;
  }
  log.info({ ms: Date.now() - started, dir }, 'local environment up');
  setEnvironment(env, bundled.value);
}

export const mochaHooks = {
  afterEach(this: Mocha.Context): void {
    if (this.currentTest?.state === 'failed') failed = true;
  },
};

export async function mochaGlobalTeardown(): Promise<void> {
  await env?.stop();
  setEnvironment(undefined);
  if (!env) return;
  if (failed || process.env.AIPLANE_KEEP_RUN_DIR) log.info({ dir: `${env.dir}/logs` }, 'logs kept');
  else rmSync(env.dir, { recursive: true, force: true });
}
