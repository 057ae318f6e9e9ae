import assert from 'node:assert/strict';
import { oauthUrlProblem } from './oauth-url.js';

describe('oauthUrlProblem', () => {
  const cases: [string, string | undefined, boolean, string | undefined][] = [
    ['an https URL', 'https://as.example/token', false, undefined],
    [
      'plain http',
      'http://as.example/token',
      false,
      "the authorization server's token_endpoint must use https",
    ],
    [
      'plain http on loopback while loopback is refused',
      'http://127.0.0.1:8080/token',
      false,
      "the authorization server's token_endpoint must use https",
    ],
    ['plain http on 127.0.0.1 in tests', 'http://127.0.0.1:8080/token', true, undefined],
    ['plain http on localhost in tests', 'http://localhost:8080/token', true, undefined],
    ['plain http on [::1] in tests', 'http://[::1]:8080/token', true, undefined],
    [
      'plain http on a public host in tests',
      'http://as.example/token',
      true,
      "the authorization server's token_endpoint must use https",
    ],
    [
      'another scheme',
      'ftp://as.example/token',
      true,
      "the authorization server's token_endpoint must use https",
    ],
    ['no URL', undefined, false, 'the authorization server names no token_endpoint'],
    [
      'something that is not a URL',
      'not a url',
      false,
      "the authorization server's token_endpoint is not a URL",
    ],
  ];
  for (const [name, url, allowLoopback, expected] of cases) {
    it(`answers ${expected === undefined ? 'no problem' : 'a problem'} for ${name}`, () => {
      assert.equal(oauthUrlProblem('token_endpoint', url, { allowLoopback }), expected);
    });
  }
});
