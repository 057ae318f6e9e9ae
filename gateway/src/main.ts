// The MCP Gateway process: `node --import tsx gateway/src/main.ts`.
import { runService } from '@aiplane/lib/service';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './server.js';

await runService('gateway', () => loadGatewayConfig(), startGateway);
