import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { scramSha256Verifier } from './scram-verifier.js';

// RFC 7677 section 3: user "user", password "pencil".
const SALT = 'W22ZaJ0SNY7soEsUEjb6gQ==';
const AUTH_MESSAGE =
  'n=user,r=rOprNGfwEbeRWgbNEkqO,' +
  'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,' +
  'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
const CLIENT_PROOF = 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=';
const SERVER_SIGNATURE = '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=';

function parse(verifier: string): {
  iterations: string;
  salt: string;
  stored: Buffer;
  server: Buffer;
} {
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(verifier);
  assert.ok(match, `not a SCRAM-SHA-256 verifier: ${verifier}`);
  const [, iterations = '', salt = '', stored = '', server = ''] = match;
  return {
    iterations,
    salt,
    stored: Buffer.from(stored, 'base64'),
    server: Buffer.from(server, 'base64'),
  };
}

describe('scramSha256Verifier', () => {
  it('accepts the RFC 7677 client proof and produces its server signature', async () => {
    const verifier = await scramSha256Verifier('pencil', { salt: Buffer.from(SALT, 'base64') });
    const { iterations, salt, stored, server } = parse(verifier);
    assert.equal(iterations, '4096');
    assert.equal(salt, SALT);
    // What the server does at login: recover ClientKey from the proof, compare StoredKey.
    const clientSignature = createHmac('sha256', stored).update(AUTH_MESSAGE).digest();
    const proof = Buffer.from(CLIENT_PROOF, 'base64');
    const clientKey = Buffer.from(proof.map((b, i) => b ^ (clientSignature[i] ?? 0)));
    assert.deepEqual(createHash('sha256').update(clientKey).digest(), stored);
    const signature = createHmac('sha256', server).update(AUTH_MESSAGE).digest('base64');
    assert.equal(signature, SERVER_SIGNATURE);
  });

  it('does not contain the password and uses a fresh salt each time', async () => {
    const password = 'correct-horse-battery-staple';
    const [a, b] = await Promise.all([
      scramSha256Verifier(password),
      scramSha256Verifier(password),
    ]);
    assert.ok(a && b);
    assert.ok(!a.includes(password));
    assert.notEqual(parse(a).salt, parse(b).salt);
  });

  for (const [what, password] of [
    ['an empty password', ''],
    ['a non-ASCII password', 'pässword'],
    ['a password with a newline', 'pass\nword'],
  ] as const) {
    it(`refuses ${what} without echoing it`, async () => {
      await assert.rejects(scramSha256Verifier(password), (err: Error) => {
        assert.match(err.message, /printable ASCII/);
        assert.ok(password === '' || !err.message.includes(password));
        return true;
      });
    });
  }
});
