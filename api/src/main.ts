// The API process: `node --import tsx api/src/main.ts`.
import { runService } from '@aiplane/lib/service';
import { loadApiConfig } from './config.js';
import { startApi } from './server.js';

await runService('api', () => loadApiConfig(), startApi);
