import assert from 'node:assert/strict';
import { REDACTED, redactText, SecretRegistry } from './redact.js';

describe('redaction of printed text', function () {
  it('replaces every occurrence of each remembered secret', function () {
    assert.equal(
      redactText('pw=s3cr3t-value; again s3cr3t-value.', ['s3cr3t-value']),
      `pw=${REDACTED}; again ${REDACTED}.`,
    );
  });

  it('replaces a longer secret whole when it contains a shorter one', function () {
    assert.equal(redactText('k1:abcdefgh', ['abcdefgh', 'k1:abcdefgh']), REDACTED);
  });

  it('leaves values shorter than six characters alone (they would match by chance)', function () {
    assert.equal(redactText('port 5432 ok', ['5432', 'ok']), 'port 5432 ok');
  });

  it('hides anything shaped like a JWT, remembered or not', function () {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    assert.equal(redactText(`Bearer ${jwt} end`, []), `Bearer ${REDACTED} end`);
  });

  it('hides SQL password literals and credentials in URLs', function () {
    assert.equal(
      redactText(`STATEMENT: CREATE ROLE "t" LOGIN PASSWORD 'SCRAM-SHA-256$4096:x'`, []),
      `STATEMENT: CREATE ROLE "t" LOGIN PASSWORD '${REDACTED}'`,
    );
    assert.equal(
      redactText('postgres://postgres:hunter2@postgres:5432/aiplane', []),
      `postgres://postgres:${REDACTED}@postgres:5432/aiplane`,
    );
  });

  it('remembers through a registry and ignores empty values', function () {
    const r = new SecretRegistry();
    assert.equal(r.remember('token-abcdef'), 'token-abcdef');
    r.remember('');
    r.remember(undefined);
    assert.equal(r.redact('a token-abcdef b'), `a ${REDACTED} b`);
    assert.equal(r.redact('nothing here'), 'nothing here');
  });
});
