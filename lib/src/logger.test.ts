import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { ApiException } from '@kubernetes/client-node';
import { controllerLogger, createLogger, isSecretKey, REDACTED } from './logger.js';

const SECRET = 's3cr3t-VALUE-that-must-not-leak';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger({ level: 'debug', destination, name: 'operator' });
  return { logger, lines, output: () => lines.join('\n') };
}

describe('createLogger', () => {
  const shapes: Array<{ name: string; fields: Record<string, unknown> }> = [
    { name: 'a top-level password', fields: { password: SECRET } },
    { name: 'a token', fields: { token: SECRET } },
    { name: 'an apiKey', fields: { apiKey: SECRET } },
    {
      name: 'an Authorization header',
      fields: { req: { headers: { Authorization: `Bearer ${SECRET}` } } },
    },
    {
      name: 'a deeply nested client secret',
      fields: { provider: { keycloak: { admin: { clientSecret: SECRET } } } },
    },
    {
      name: 'a credential inside an array',
      fields: { users: [{ name: 'a', credential: SECRET }] },
    },
    { name: 'snake and kebab case keys', fields: { refresh_token: SECRET, 'x-api-key': SECRET } },
    { name: 'a plural secrets map', fields: { secrets: { DB_URL: SECRET } } },
  ];
  for (const { name, fields } of shapes) {
    it(`never writes the value of ${name}`, () => {
      const { logger, output, lines } = capture();
      logger.info(fields, 'configured');
      assert.equal(lines.length, 1);
      assert.ok(!output().includes(SECRET), output());
      assert.ok(output().includes(REDACTED));
      assert.equal((JSON.parse(lines[0] ?? '{}') as { msg?: string }).msg, 'configured');
    });
  }

  it('never writes secrets bound to a child logger', () => {
    const { logger, output } = capture();
    controllerLogger(logger, 'mcpserver').child({ token: SECRET }).warn('hello');
    assert.ok(!output().includes(SECRET), output());
    assert.match(output(), /"controller":"mcpserver"/);
  });

  it('never writes secret fields carried by an error', () => {
    const { logger, output } = capture();
    const err = Object.assign(new Error('login failed'), {
      password: SECRET,
      details: { token: SECRET },
    });
    logger.error({ err }, 'failed');
    logger.error(err);
    assert.ok(!output().includes(SECRET), output());
    assert.match(output(), /login failed/);
    assert.match(output(), /"stack":/);
  });

  it('keeps the code and Status message of an ApiException but not the headers and body it embeds in its message', () => {
    const { logger, output } = capture();
    const body = {
      kind: 'Status',
      reason: 'Forbidden',
      message: 'leases is forbidden',
      token: SECRET,
    };
    const err = new ApiException(403, 'Forbidden', body, { authorization: SECRET });
    logger.error({ err }, 'apiserver refused');
    assert.ok(!output().includes(SECRET), output());
    const line = JSON.parse(output()) as {
      err: { code: number; message: string; stack: string; headers: Record<string, string> };
    };
    assert.equal(line.err.code, 403);
    assert.equal(line.err.message, 'HTTP 403 Forbidden: leases is forbidden');
    assert.match(line.err.stack, /^Error: HTTP 403 Forbidden: leases is forbidden\n {4}at /);
    assert.equal(line.err.headers.authorization, REDACTED);
  });

  it('keeps fields that only look similar, such as secretName and tokenUrl', () => {
    const { logger, lines } = capture();
    logger.info({ secretName: 'mcp-env-github', tokenUrl: 'https://idp/token' }, 'x');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(line.secretName, 'mcp-env-github');
    assert.equal(line.tokenUrl, 'https://idp/token');
  });

  it('writes JSON with a level label, a timestamp and the logger name', () => {
    const { logger, lines } = capture();
    logger.debug('ready');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(line.level, 'debug');
    assert.equal(line.name, 'operator');
    assert.equal(typeof line.time, 'string');
  });
});

describe('isSecretKey', () => {
  const cases: Array<[string, boolean]> = [
    ['password', true],
    ['dbPassword', true],
    ['Authorization', true],
    ['accessToken', true],
    ['client_secret', true],
    ['x-api-key', true],
    ['credentials', true],
    ['secretName', false],
    ['tokenUrl', false],
    ['name', false],
  ];
  for (const [key, secret] of cases) {
    it(`treats ${key} as ${secret ? 'secret' : 'not secret'}`, () => {
      assert.equal(isSecretKey(key), secret);
    });
  }
});
