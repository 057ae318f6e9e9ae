// The API process: `node --import tsx api/src/main.ts`.
import { createLogger, loadConfigOrExit } from '@aiplane/lib';
import { loadApiConfig } from './config.js';
import { startApi } from './server.js';

const config = loadConfigOrExit(loadApiConfig);
const logger = createLogger({ level: config.logLevel, name: 'api' });
const api = await startApi(config, logger);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'api stopping');
    void api.close().then(() => process.exit(0));
  });
}
