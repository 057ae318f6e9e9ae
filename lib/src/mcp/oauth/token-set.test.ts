import assert from 'node:assert/strict';
import {
  MAX_TOKEN_LIFETIME_SECONDS,
  needsRenewal,
  parseTokenSet,
  RENEWAL_MARGIN_MS,
  serializeTokenSet,
  tokenSetFrom,
  type OAuthTokenSet,
} from './token-set.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const origin = {
  issuer: 'https://as.example',
  tokenEndpoint: 'https://as.example/token',
  clientRef: '7d4a1c1e-0c5f-4c1b-8f9a-0b1d2e3f4a5b',
  clientId: 'client-1',
  resource: 'https://mcp.example/mcp',
};

function set(overrides: Partial<OAuthTokenSet> = {}): OAuthTokenSet {
  return {
    ...tokenSetFrom({ access_token: 'a', token_type: 'Bearer' }, origin, NOW),
    ...overrides,
  };
}

describe('tokenSetFrom', () => {
  it('turns expires_in into an absolute expiry and keeps where the tokens came from', () => {
    const s = tokenSetFrom(
      {
        access_token: 'at',
        token_type: 'Bearer',
        expires_in: 300,
        refresh_token: 'rt',
        scope: 's',
      },
      origin,
      NOW,
    );
    assert.deepEqual(s, {
      v: 1,
      access_token: 'at',
      refresh_token: 'rt',
      expires_at: '2026-03-01T12:05:00.000Z',
      issuer: origin.issuer,
      token_endpoint: origin.tokenEndpoint,
      client_ref: origin.clientRef,
      client_id: 'client-1',
      resource: origin.resource,
      scope: 's',
    });
  });

  it('records no expiry when the authorization server gives none', () => {
    assert.equal(set().expires_at, null);
  });

  const lifetimes: [string, number, string][] = [
    ['1e300 (no Date can hold it) as one year', 1e300, '2027-03-01T12:00:00.000Z'],
    ['Infinity as one year', Infinity, '2027-03-01T12:00:00.000Z'],
    [
      'a lifetime just past a year as one year',
      MAX_TOKEN_LIFETIME_SECONDS + 1,
      '2027-03-01T12:00:00.000Z',
    ],
    ['a negative lifetime as expired now', -60, '2026-03-01T12:00:00.000Z'],
  ];
  for (const [name, expiresIn, expected] of lifetimes) {
    it(`records an expires_in of ${name}`, () => {
      const s = tokenSetFrom(
        { access_token: 'at', token_type: 'Bearer', expires_in: expiresIn },
        origin,
        NOW,
      );
      assert.equal(s.expires_at, expected);
    });
  }

  it('records no expiry for an expires_in that is not a number', () => {
    const s = tokenSetFrom(
      { access_token: 'at', token_type: 'Bearer', expires_in: NaN },
      origin,
      NOW,
    );
    assert.equal(s.expires_at, null);
  });

  it('keeps the previous refresh token and scope when a refresh answer omits them', () => {
    const previous = set({ refresh_token: 'old-rt', scope: 'read' });
    const next = tokenSetFrom({ access_token: 'b', token_type: 'Bearer' }, origin, NOW, previous);
    assert.equal(next.refresh_token, 'old-rt');
    assert.equal(next.scope, 'read');
    const rotated = tokenSetFrom(
      { access_token: 'b', token_type: 'Bearer', refresh_token: 'new-rt', scope: 'write' },
      origin,
      NOW,
      previous,
    );
    assert.equal(rotated.refresh_token, 'new-rt');
    assert.equal(rotated.scope, 'write');
  });
});

describe('parseTokenSet', () => {
  it('reads back what serializeTokenSet wrote', () => {
    const s = set({ refresh_token: 'rt', expires_at: NOW.toISOString() });
    assert.deepEqual(parseTokenSet(serializeTokenSet(s)), s);
  });

  for (const [name, value] of [
    ['a static credential', 'plain-token-value'],
    ['JSON of another shape', '{"access_token":"a"}'],
    ['another version', JSON.stringify({ ...set(), v: 2 })],
    ['an empty access token', JSON.stringify({ ...set(), access_token: '' })],
  ]) {
    it(`answers undefined for ${name}`, () => {
      assert.equal(parseTokenSet(value as string), undefined);
    });
  }
});

describe('needsRenewal', () => {
  const at = (ms: number) => set({ expires_at: new Date(NOW.getTime() + ms).toISOString() });
  const cases: [string, OAuthTokenSet, boolean][] = [
    ['a token without expiry', set(), false],
    ['a token valid for an hour', at(3_600_000), false],
    ['a token valid just beyond the margin', at(RENEWAL_MARGIN_MS + 1), false],
    ['a token expiring exactly at the margin', at(RENEWAL_MARGIN_MS), true],
    ['a token expiring within 30 s', at(10_000), true],
    ['an expired token', at(-1), true],
    ['an unreadable expiry', set({ expires_at: 'soon' }), true],
  ];
  for (const [name, s, expected] of cases) {
    it(`answers ${expected} for ${name}`, () => {
      assert.equal(needsRenewal(s, NOW), expected);
    });
  }
});
