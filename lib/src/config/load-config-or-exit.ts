import { ConfigError } from './config-error.js';

/**
 * A process's configuration, or its end: a {@link ConfigError} is printed to stderr (its
 * message names every problem, never a value that could be a secret) and the process exits
 * with status 2; any other error is thrown on.
 */
export function loadConfigOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
