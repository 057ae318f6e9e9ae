import assert from 'node:assert/strict';
import { Response as UndiciResponse } from 'undici';
import { ApiError } from '../../errors/api-error.js';
import type { OAuthClient } from '../../store/oauth-client-store.js';
import type { FetchLike } from '../upstream/index.js';
import { oauthFetch } from './oauth-fetch.js';
import { renewTokenSet } from './token-renewal.js';
import { tokenSetFrom, type OAuthTokenSet } from './token-set.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const CLIENT: OAuthClient = {
  id: '7d4a1c1e-0c5f-4c1b-8f9a-0b1d2e3f4a5b',
  serverId: '1b7a6f1c-0a5e-4c43-9a53-7f0e0f0e0f0e',
  issuer: 'https://as.example',
  metadata: {
    issuer: 'https://as.example',
    authorization_endpoint: 'https://as.example/authorize',
    token_endpoint: 'https://as.example/token',
    response_types_supported: ['code'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
  },
  redirectUri: 'https://portal.example/oauth/return',
  clientId: 'client-1',
  clientSecret: 'client-secret-1',
  tokenEndpointAuthMethod: 'client_secret_basic',
};
const SET: OAuthTokenSet = tokenSetFrom(
  {
    access_token: 'old-at',
    token_type: 'Bearer',
    expires_in: 10,
    refresh_token: 'rt-1',
    scope: 'files',
  },
  {
    issuer: CLIENT.issuer,
    tokenEndpoint: 'https://as.example/token',
    clientRef: CLIENT.id,
    clientId: CLIENT.clientId,
    resource: 'https://mcp.example/mcp',
  },
  NOW,
);

interface Sent {
  url: string;
  body: URLSearchParams;
  authorization: string | null;
}

function fakeAuthorizationServer(answer: () => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({
      url: String(url),
      body: new URLSearchParams(init?.body instanceof URLSearchParams ? init.body : undefined),
      authorization: new Headers(init?.headers).get('authorization'),
    });
    return answer();
  };
  return { sent, fetch };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function refusal(run: () => Promise<unknown>): Promise<ApiError> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  assert.fail('did not throw');
}

describe('renewTokenSet', () => {
  it('sends the refresh grant with the refresh token, the resource and the client’s secret, and keeps the refresh token', async () => {
    const as = fakeAuthorizationServer(() =>
      json(200, { access_token: 'new-at', token_type: 'Bearer', expires_in: 60 }),
    );
    const next = await renewTokenSet({ set: SET, client: CLIENT, fetch: as.fetch, now: NOW });
    assert.equal(as.sent.length, 1);
    const [sent] = as.sent;
    assert.equal(sent?.url, 'https://as.example/token');
    assert.equal(sent?.body.get('grant_type'), 'refresh_token');
    assert.equal(sent?.body.get('refresh_token'), 'rt-1');
    assert.equal(sent?.body.get('resource'), 'https://mcp.example/mcp');
    assert.equal(
      sent?.authorization,
      `Basic ${Buffer.from('client-1:client-secret-1').toString('base64')}`,
    );
    assert.equal(next.access_token, 'new-at');
    assert.equal(next.refresh_token, 'rt-1');
    assert.equal(next.expires_at, '2026-03-01T12:01:00.000Z');
    assert.equal(next.scope, 'files');
    assert.equal(next.client_ref, CLIENT.id);
  });

  it('renews with a one-year expiry when the answer says expires_in 1e300 (no RangeError)', async () => {
    const as = fakeAuthorizationServer(() =>
      json(200, { access_token: 'new-at', token_type: 'Bearer', expires_in: 1e300 }),
    );
    const next = await renewTokenSet({ set: SET, client: CLIENT, fetch: as.fetch, now: NOW });
    assert.equal(next.access_token, 'new-at');
    assert.equal(next.expires_at, '2027-03-01T12:00:00.000Z');
    assert.equal(next.refresh_token, 'rt-1', 'the refresh token it had is kept');
  });

  for (const code of ['invalid_grant', 'invalid_client', 'unauthorized_client']) {
    it(`answers 403 mcp_credential_expired when the authorization server answers ${code}`, async () => {
      const as = fakeAuthorizationServer(() => json(400, { error: code }));
      const err = await refusal(() =>
        renewTokenSet({ set: SET, client: CLIENT, fetch: as.fetch, now: NOW }),
      );
      assert.equal(err.code, 'mcp_credential_expired');
      assert.equal(err.status, 403);
      assert.match(err.message, new RegExp(code));
    });
  }

  it('reads the OAuth error of an answer from the pinned fetch (undici’s Response class)', async () => {
    const undiciFetch = (() =>
      Promise.resolve(
        new UndiciResponse(JSON.stringify({ error: 'invalid_grant' }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        }),
      )) as unknown as FetchLike;
    const err = await refusal(() =>
      renewTokenSet({ set: SET, client: CLIENT, fetch: oauthFetch(undiciFetch, 1000), now: NOW }),
    );
    assert.equal(err.code, 'mcp_credential_expired');
  });

  const transient: [string, () => Response | Promise<Response>][] = [
    ['a 503 page', () => new Response('<html>down</html>', { status: 503 })],
    ['temporarily_unavailable', () => json(400, { error: 'temporarily_unavailable' })],
    ['a refused connection', () => Promise.reject(new TypeError('fetch failed'))],
  ];
  for (const [name, answer] of transient) {
    it(`answers 503 mcp_oauth_upstream_error for ${name}`, async () => {
      const as = fakeAuthorizationServer(answer);
      const err = await refusal(() =>
        renewTokenSet({ set: SET, client: CLIENT, fetch: as.fetch, now: NOW }),
      );
      assert.equal(err.code, 'mcp_oauth_upstream_error');
      assert.ok(!err.message.includes('down'), 'no upstream text in the message');
    });
  }

  const impossible: [string, OAuthTokenSet, OAuthClient | undefined][] = [
    ['no refresh token was issued', { ...SET, refresh_token: null }, CLIENT],
    ['the client registration is gone', SET, undefined],
    ['the registration is another client', SET, { ...CLIENT, clientId: 'client-2' }],
  ];
  for (const [name, set, client] of impossible) {
    it(`answers 403 mcp_credential_expired without a request when ${name}`, async () => {
      const as = fakeAuthorizationServer(() => json(500, {}));
      const err = await refusal(() => renewTokenSet({ set, client, fetch: as.fetch, now: NOW }));
      assert.equal(err.code, 'mcp_credential_expired');
      assert.equal(as.sent.length, 0);
    });
  }
});
