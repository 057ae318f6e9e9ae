// The MCP Gateway process: `node --import tsx api/src/gateway/main.ts`.
import { createLogger, loadConfigOrExit } from '@aiplane/lib';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './server.js';

const config = loadConfigOrExit(loadGatewayConfig);
const logger = createLogger({ level: config.logLevel, name: 'gateway' });
const gateway = await startGateway(config, logger);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'gateway stopping');
    void gateway.close().then(() => process.exit(0));
  });
}
