import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-rpc.js';
import { jsonBody } from './steps/call.js';

describe('nesting depth of a request body', function () {
  const nested = (depth: number) =>
    JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;

  it('counts arrays and objects, not scalars', function () {
    assert.equal(nestedDeeperThan(1, 0), false);
    assert.equal(nestedDeeperThan({ a: 1 }, 1), false);
    assert.equal(nestedDeeperThan({ a: { b: [1] } }, 2), true);
    assert.equal(nestedDeeperThan({ a: { b: [1] } }, 3), false);
  });

  it('walks 100k levels without overflowing the stack', function () {
    assert.equal(nestedDeeperThan(nested(100_000), MAX_JSON_DEPTH), true);
  });

  it('reads a body at the limit and refuses one past it as unreadable', function () {
    assert.notEqual(
      jsonBody(Buffer.from(JSON.stringify({ p: nested(MAX_JSON_DEPTH - 1) }))),
      undefined,
    );
    assert.equal(jsonBody(Buffer.from(JSON.stringify({ p: nested(MAX_JSON_DEPTH) }))), undefined);
    assert.equal(
      jsonBody(Buffer.from(`{"params":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`)),
      undefined,
    );
  });
});
