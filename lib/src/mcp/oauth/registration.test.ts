import assert from 'node:assert/strict';
import { chooseAuthMethod } from './registration.js';
import { OAuthSetupError } from './oauth-failure.js';

describe('chooseAuthMethod', () => {
  const cases: [string, string[] | undefined, string][] = [
    ['no list (RFC 8414 default)', undefined, 'client_secret_basic'],
    ['an empty list', [], 'client_secret_basic'],
    [
      'Keycloak’s list',
      ['private_key_jwt', 'client_secret_basic', 'client_secret_post'],
      'client_secret_basic',
    ],
    ['the SDK authorization server’s list', ['client_secret_post', 'none'], 'client_secret_post'],
    ['public clients only', ['none'], 'none'],
  ];
  for (const [name, supported, expected] of cases) {
    it(`chooses ${expected} for ${name}`, () => {
      assert.equal(chooseAuthMethod(supported), expected);
    });
  }

  it('refuses a server that supports none of the methods we speak', () => {
    assert.throws(() => chooseAuthMethod(['private_key_jwt', 'tls_client_auth']), OAuthSetupError);
  });
});
