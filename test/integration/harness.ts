import type { KubeConfig } from '@kubernetes/client-node';
import type { LocalEnvironment } from '@aiplane/hack';

let current: LocalEnvironment | undefined;
let bundles: Record<string, string> = {};

/** Set once per run by setup.ts: the environment and the entry points it bundled (name → file). */
export function setEnvironment(
  env: LocalEnvironment | undefined,
  bundled: Record<string, string> = {},
): void {
  current = env;
  bundles = bundled;
}

/**
 * An entry point bundled once for this run by setup.ts: `operator` (operator/src/main.ts) or
 * `placeholder-operator` (fixtures/placeholder-operator.ts).
 */
export function bundled(name: 'operator' | 'placeholder-operator'): string {
  const file = bundles[name];
  if (!file) throw new Error(`${name} was not bundled for this run (see setup.ts)`);
  return file;
}

/** The local environment that setup.ts started for this test run. */
export function environment(): LocalEnvironment {
  if (!current) throw new Error('the integration environment is not running (see setup.ts)');
  return current;
}

export function kubeConfig(): KubeConfig {
  return environment().controlPlane.kubeConfig();
}
