// The MCP Gateway process: `node --import tsx api/src/gateway/main.ts`.
import { createLogger } from '@aiplane/lib';
import { ConfigError } from '../config.js';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './server.js';

let config;
try {
  config = loadGatewayConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const logger = createLogger({ level: config.logLevel, name: 'gateway' });
const gateway = await startGateway(config, logger);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'gateway stopping');
    void gateway.close().then(() => process.exit(0));
  });
}
