import { isAbsolute } from 'node:path';
import { ConfigError } from '@aiplane/lib';
import { readInt, readServiceConfig, type ServiceConfig } from '@aiplane/lib/service';

/** The API's configuration: the shared settings and where it listens; read once, frozen. */
export interface ApiConfig extends ServiceConfig {
  readonly host: string;
  readonly port: number;
  /** Model-installer downloads (docs/adr/0025). */
  readonly modelStore: {
    /** Where model files are written (a volume; the chart mounts a PVC). */
    readonly dir: string;
    /** Downloads one replica works at once. */
    readonly concurrency: number;
    /** The most bytes one file may have. */
    readonly maxFileBytes: number;
    /**
     * TEST ONLY (default false): sources on 127.0.0.0/8 and ::1 pass the address rules, so
     * tests can download from a file server on loopback. Never in a deployment.
     */
    readonly allowLoopbackSources: boolean;
  };
}

export { ConfigError };

/** The model store's default: the chart's volume mount. */
export const DEFAULT_MODEL_STORE_DIR = '/var/lib/aiplane/models';

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const problems: string[] = [];
  const shared = readServiceConfig(env, problems);
  const host = env.AIPLANE_API_HOST || '127.0.0.1';
  const port = readInt(env, 'AIPLANE_API_PORT', 8080, { min: 0, max: 65535 }, problems);
  const dir = env.AIPLANE_MODEL_STORE_DIR || DEFAULT_MODEL_STORE_DIR;
  if (!isAbsolute(dir)) problems.push('AIPLANE_MODEL_STORE_DIR must be an absolute path');
  const loopback = env.AIPLANE_MODEL_DOWNLOAD_ALLOW_LOOPBACK_SOURCES;
  if (loopback !== undefined && loopback !== '' && loopback !== 'true' && loopback !== 'false') {
    problems.push(
      `AIPLANE_MODEL_DOWNLOAD_ALLOW_LOOPBACK_SOURCES must be true or false, got "${loopback}"`,
    );
  }
  const modelStore = Object.freeze({
    dir,
    concurrency: readInt(
      env,
      'AIPLANE_MODEL_DOWNLOAD_CONCURRENCY',
      2,
      { min: 1, max: 16 },
      problems,
    ),
    maxFileBytes: readInt(
      env,
      'AIPLANE_MODEL_DOWNLOAD_MAX_FILE_BYTES',
      200 * 2 ** 30,
      { min: 1, max: Number.MAX_SAFE_INTEGER },
      problems,
    ),
    allowLoopbackSources: loopback === 'true',
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ ...shared, host, port, modelStore });
}
