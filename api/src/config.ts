import { ConfigError } from '@aiplane/lib';
import { readInt, readServiceConfig, type ServiceConfig } from '@aiplane/lib/service';

/** The API's configuration: the shared settings and where it listens; read once, frozen. */
export interface ApiConfig extends ServiceConfig {
  readonly host: string;
  readonly port: number;
}

export { ConfigError };

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const problems: string[] = [];
  const shared = readServiceConfig(env, problems);
  const host = env.AIPLANE_API_HOST || '127.0.0.1';
  const port = readInt(env, 'AIPLANE_API_PORT', 8080, { min: 0, max: 65535 }, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ ...shared, host, port });
}
