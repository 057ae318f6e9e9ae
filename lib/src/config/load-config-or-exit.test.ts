import assert from 'node:assert/strict';
import { ConfigError } from './config-error.js';
import { loadConfigOrExit } from './load-config-or-exit.js';

describe('loadConfigOrExit', () => {
  const exit = process.exit.bind(process);
  const write = process.stderr.write.bind(process.stderr);
  afterEach(() => {
    process.exit = exit;
    process.stderr.write = write;
  });

  it('answers what the loader loaded', () => {
    assert.deepEqual(
      loadConfigOrExit(() => ({ port: 8080 })),
      { port: 8080 },
    );
  });

  it('prints a ConfigError’s message to stderr and exits 2', () => {
    const printed: unknown[] = [];
    process.stderr.write = (chunk: string | Uint8Array) => printed.push(String(chunk)) > 0;
    process.exit = (code?: number) => {
      throw new Error(`exit ${code}`);
    };
    assert.throws(
      () =>
        loadConfigOrExit(() => {
          throw new ConfigError(['A is required', 'B must be an integer']);
        }),
      /^Error: exit 2$/,
    );
    assert.deepEqual(printed, [
      'invalid configuration:\n  A is required\n  B must be an integer\n',
    ]);
  });

  it('throws any other error on, without exiting', () => {
    process.exit = () => {
      throw new Error('exited');
    };
    assert.throws(
      () =>
        loadConfigOrExit(() => {
          throw new TypeError('a bug');
        }),
      /^TypeError: a bug$/,
    );
  });
});
