import assert from 'node:assert/strict';
import { bearerChallenge } from './challenge.js';

const answer = (status: number, header?: string) =>
  new Response(null, {
    status,
    headers: header === undefined ? {} : { 'www-authenticate': header },
  });

describe('bearerChallenge', () => {
  it('reads resource_metadata and scope of a 401 Bearer challenge', () => {
    const c = bearerChallenge(
      answer(
        401,
        'Bearer error="invalid_token", scope="files:read files:write", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"',
      ),
    );
    assert.equal(
      c?.resourceMetadataUrl?.href,
      'https://mcp.example/.well-known/oauth-protected-resource/mcp',
    );
    assert.equal(c?.scope, 'files:read files:write');
  });

  it('answers a challenge without parameters for a bare Bearer scheme', () => {
    assert.deepEqual(bearerChallenge(answer(401, 'Bearer')), {});
    assert.deepEqual(bearerChallenge(answer(401, 'bearer realm="mcp"')), {});
  });

  it('finds the Bearer scheme among several challenges', () => {
    assert.ok(bearerChallenge(answer(401, 'Basic realm="x", Bearer realm="y"')));
  });

  const none: [string, Response][] = [
    ['an answer', answer(200)],
    ['a 403 with a Bearer challenge', answer(403, 'Bearer error="insufficient_scope"')],
    ['a 401 without WWW-Authenticate', answer(401)],
    ['a 401 with another scheme', answer(401, 'Basic realm="files"')],
    ['a 401 whose parameter only mentions bearer', answer(401, 'Basic realm="bearer"')],
  ];
  for (const [name, res] of none) {
    it(`answers undefined for ${name}`, () => {
      assert.equal(bearerChallenge(res), undefined);
    });
  }
});
