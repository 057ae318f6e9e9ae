import assert from 'node:assert/strict';
import type { Request } from 'express';
import { ApiError } from '../errors/api-error.js';
import { organizationOf } from './middleware.js';
import { organizationsFromClaim, type Principal, rolesFromClaims } from './principal.js';

const req = (header?: string) =>
  ({
    get: (n: string) => (n.toLowerCase() === 'x-aiplane-organization' ? header : undefined),
  }) as unknown as Request;
const principal = (roles: string[], orgs: { id: string; alias: string }[]): Principal => ({
  userId: 'u',
  roles: new Set(roles),
  organizations: orgs,
  via: 'jwt',
});
const acme = { id: '11111111-1111-1111-1111-111111111111', alias: 'acme' };
const beta = { id: '22222222-2222-2222-2222-222222222222', alias: 'beta' };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
  return undefined;
}

describe('principal claims', function () {
  it('reads organizations with ids from Keycloak’s organization claim and ignores entries without one', function () {
    assert.deepEqual(organizationsFromClaim({ acme: { id: acme.id }, old: {} }), [acme]);
    assert.deepEqual(organizationsFromClaim(['acme']), []);
    assert.deepEqual(organizationsFromClaim(undefined), []);
  });

  it('reads realm roles from realm_access.roles', function () {
    assert.deepEqual([...rolesFromClaims({ realm_access: { roles: ['a', 1, 'b'] } })], ['a', 'b']);
    assert.equal(rolesFromClaims({}).size, 0);
  });
});

describe('organization context', function () {
  const cases: [string, Principal, string | undefined, string][] = [
    ['a member with one organization acts in it', principal([], [acme]), undefined, acme.id],
    ['a member may name their organization by id', principal([], [acme, beta]), beta.id, beta.id],
    ['a member may name their organization by alias', principal([], [acme, beta]), 'beta', beta.id],
    [
      'a platform admin may name any organization by id',
      principal(['platform-admin'], []),
      beta.id,
      beta.id,
    ],
    [
      'a platform admin in one organization defaults to it',
      principal(['platform-admin'], [acme]),
      undefined,
      acme.id,
    ],
  ];
  for (const [what, p, header, expected] of cases) {
    it(what, function () {
      assert.equal(organizationOf(req(header), p), expected);
    });
  }

  const refusals: [string, Principal, string | undefined, string][] = [
    [
      'a member naming another organization is refused',
      principal([], [acme]),
      beta.id,
      'organization_access_denied',
    ],
    [
      'a member of several organizations must name one',
      principal([], [acme, beta]),
      undefined,
      'organization_required',
    ],
    [
      'a caller with no organization must name one',
      principal([], []),
      undefined,
      'organization_required',
    ],
    [
      'a platform admin must name a foreign organization by id',
      principal(['platform-admin'], []),
      'acme',
      'organization_invalid',
    ],
  ];
  for (const [what, p, header, code] of refusals) {
    it(what, function () {
      assert.equal(
        codeOf(() => organizationOf(req(header), p)),
        code,
      );
    });
  }
});
