import assert from 'node:assert/strict';
import { generateKeyringEntry } from './generate-key.js';
import { KeyringError } from './keyring-error.js';
import { parseKeyring } from './keyring.js';
import { openSecret, sealSecret } from './secret-box.js';

describe('keyring entry generator', function () {
  it('produces "<kid>:<base64 32-byte key>" that parseKeyring accepts', function () {
    const entry = generateKeyringEntry('k2025-01');
    assert.match(entry, /^k2025-01:[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(entry.slice('k2025-01:'.length), 'base64').length, 32);
    const keyring = parseKeyring(entry);
    assert.equal(keyring.activeKid, 'k2025-01');
    assert.equal(openSecret(keyring, sealSecret(keyring, 'token', 'row'), 'row'), 'token');
  });

  it('produces a different key every time', function () {
    assert.notEqual(generateKeyringEntry('k'), generateKeyringEntry('k'));
  });

  it('produces entries that can be prepended to rotate', function () {
    const keyring = parseKeyring(`${generateKeyringEntry('new')},${generateKeyringEntry('old')}`);
    assert.deepEqual(keyring.kids, ['new', 'old']);
  });

  for (const kid of ['', 'a.b', 'a:b', 'x'.repeat(33)]) {
    it(`refuses the malformed kid ${JSON.stringify(kid)}`, function () {
      assert.throws(() => generateKeyringEntry(kid), KeyringError);
    });
  }
});
