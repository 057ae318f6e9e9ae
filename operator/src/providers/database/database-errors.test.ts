import assert from 'node:assert/strict';
import {
  databaseError,
  DatabaseOwnedByOther,
  DatabaseUnreachable,
  isConnectionFailure,
} from './database-errors.js';

function pgError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

const context = { action: 'create "tenant_acme"', endpoint: 'db:5432', secrets: ['s3cret-pw'] };

describe('isConnectionFailure', () => {
  const cases: [string, unknown, boolean][] = [
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'), true],
    ['an unknown host', pgError('getaddrinfo ENOTFOUND db', 'ENOTFOUND'), true],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect'), true],
    ['a lost connection', new Error('Connection terminated unexpectedly'), true],
    ['a connect timeout', new Error('Connection terminated due to connection timeout'), true],
    ['SQLSTATE 08006', pgError('connection failure', '08006'), true],
    ['a server starting up (57P03)', pgError('the database system is starting up', '57P03'), true],
    ['an admin shutdown (57P01)', pgError('terminating connection', '57P01'), true],
    ['too many connections (53300)', pgError('too many clients already', '53300'), true],
    [
      'an AggregateError of refused addresses',
      Object.assign(new AggregateError([pgError('x', 'ECONNREFUSED')], 'all failed'), {}),
      true,
    ],
    ['a wrapped refusal', new Error('outer', { cause: pgError('inner', 'ECONNREFUSED') }), true],
    ['a permission error (42501)', pgError('permission denied to create role', '42501'), false],
    ['a failed password (28P01)', pgError('password authentication failed', '28P01'), false],
    ['a duplicate role (42710)', pgError('role "x" already exists', '42710'), false],
    ['a plain error', new Error('boom'), false],
  ];
  for (const [what, err, expected] of cases) {
    it(`${expected ? 'counts' : 'does not count'} ${what} as unreachable`, () => {
      assert.equal(isConnectionFailure(err), expected);
    });
  }
});

describe('databaseError', () => {
  it('turns a refused connection into a retryable DatabaseUnreachable naming the endpoint', () => {
    const err = databaseError(
      pgError('connect ECONNREFUSED 10.0.0.1:5432', 'ECONNREFUSED'),
      context,
    );
    assert.ok(err instanceof DatabaseUnreachable);
    assert.equal(err.retryable, true);
    assert.match(err.message, /PostgreSQL at db:5432 is unreachable/);
  });

  it('keeps DatabaseOwnedByOther as it is', () => {
    const owned = new DatabaseOwnedByOther('database', 'tenant_acme');
    assert.equal(databaseError(owned, context), owned);
  });

  it('reports a permission error with the action and SQLSTATE, as a plain error', () => {
    const err = databaseError(pgError('permission denied to create role', '42501'), context);
    assert.ok(!(err instanceof DatabaseUnreachable));
    assert.equal(
      err.message,
      'PostgreSQL could not create "tenant_acme": permission denied to create role (SQLSTATE 42501)',
    );
  });

  it('scrubs a secret from the message and then drops the cause', () => {
    const err = databaseError(pgError('syntax error at or near "s3cret-pw"', '42601'), context);
    assert.ok(!err.message.includes('s3cret-pw'));
    assert.match(err.message, /\[REDACTED\]/);
    assert.equal(err.cause, undefined);
  });
});
