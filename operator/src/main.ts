// The operator process: `node --import tsx operator/src/main.ts` (or the built image's
// `operator` command).
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, loadConfigOrExit } from '@aiplane/lib';
import { loadOperatorConfig } from './config.js';
import { allControllers } from './controllers/index.js';
import { startOperator } from './operator.js';

const config = loadConfigOrExit(loadOperatorConfig);
const logger = createLogger({ level: config.logLevel, name: 'operator' });
const kc = new KubeConfig();
kc.loadFromDefault();
const handle = await startOperator({ kc, config, logger, controllers: allControllers });
logger.info({ port: handle.port }, 'operator started');
const reason = await handle.done;
logger.info({ reason }, 'operator stopped');
// Lost leadership: exit non-zero so the Deployment restarts us as a standby.
process.exit(reason === 'lost-leadership' ? 1 : 0);
