import { join } from 'node:path';
import { operatorEnv, startBundled, type ManagedProcess } from '@aiplane/hack';
import { keycloak } from './api-helpers.js';
import { bundled, environment } from './harness.js';

let counter = 0;

/**
 * The real operator (operator/src/main.ts, bundled for this run by setup.ts as the image bundles
 * it) as its own process, configured for the local
 * environment: Keycloak organizations through the operator client, dedicated databases on
 * the run's PostgreSQL. Leader election off (one operator at a time in these suites).
 */
export function startOperatorProcess(extraEnv: Record<string, string> = {}): ManagedProcess {
  const env = environment();
  keycloak(); // records the environment's secrets for the log sweep
  counter += 1;
  return startBundled({
    name: `operator-${counter}`,
    file: bundled('operator'),
    env: {
      ...process.env,
      ...operatorEnv(env.info()),
      AIPLANE_LOG_LEVEL: 'debug',
      AIPLANE_OPERATOR_HEALTH_PORT: '0',
      AIPLANE_OPERATOR_LEADER_ELECTION: 'false',
      AIPLANE_OPERATOR_SHUTDOWN_GRACE_MS: '5000',
      AIPLANE_OPERATOR_HEALTH_CHECK_SECONDS: '2',
      AIPLANE_OPERATOR_REPAIR_DELAY_SECONDS: '3',
      ...extraEnv,
    },
    logFile: join(env.controlPlane.logDir, `operator-${counter}.log`),
  });
}
