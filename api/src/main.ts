// The API process: `node --import tsx api/src/main.ts`.
import { createLogger } from '@aiplane/lib';
import { ConfigError, loadApiConfig } from './config.js';
import { startApi } from './server.js';

let config;
try {
  config = loadApiConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const logger = createLogger({ level: config.logLevel, name: 'api' });
const api = await startApi(config, logger);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'api stopping');
    void api.close().then(() => process.exit(0));
  });
}
