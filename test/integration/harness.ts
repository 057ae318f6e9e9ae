import type { KubeConfig } from '@kubernetes/client-node';
import type { LocalEnvironment } from '@aiplane/hack';

let current: LocalEnvironment | undefined;

/** Set once per run by setup.ts. */
export function setEnvironment(env: LocalEnvironment | undefined): void {
  current = env;
}

/** The local environment that setup.ts started for this test run. */
export function environment(): LocalEnvironment {
  if (!current) throw new Error('the integration environment is not running (see setup.ts)');
  return current;
}

export function kubeConfig(): KubeConfig {
  return environment().controlPlane.kubeConfig();
}
