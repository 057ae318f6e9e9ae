import type { KubeConfig } from '@kubernetes/client-node';
import type { LocalEnvironment } from '@aiplane/hack';

let current: LocalEnvironment | undefined;
let operatorFile: string | undefined;

/** Set once per run by setup.ts: the environment and the operator's bundle. */
export function setEnvironment(env: LocalEnvironment | undefined, operatorBundle?: string): void {
  current = env;
  operatorFile = operatorBundle;
}

/** The operator (operator/src/main.ts) bundled once for this run by setup.ts. */
export function operatorBundle(): string {
  if (!operatorFile) throw new Error('the operator was not bundled for this run (see setup.ts)');
  return operatorFile;
}

/** The local environment that setup.ts started for this test run. */
export function environment(): LocalEnvironment {
  if (!current) throw new Error('the integration environment is not running (see setup.ts)');
  return current;
}

export function kubeConfig(): KubeConfig {
  return environment().controlPlane.kubeConfig();
}
