import { loadConfigOrExit } from '../config/load-config-or-exit.js';
import { createLogger, type Logger } from '../logger.js';

/**
 * An HTTP service's process: its configuration (or exit 2 naming every problem), a logger,
 * the service started, and a graceful stop on SIGTERM or SIGINT (exit 0 once closed).
 */
export async function runService<C extends { logLevel: string }>(
  name: string,
  load: () => C,
  start: (config: C, logger: Logger) => Promise<{ close(): Promise<void> }>,
): Promise<void> {
  const config = loadConfigOrExit(load);
  const logger = createLogger({ level: config.logLevel, name });
  const service = await start(config, logger);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, `${name} stopping`);
      void service.close().then(() => process.exit(0));
    });
  }
}
