import assert from 'node:assert/strict';
import type { Request } from 'express';
import { ApiError } from '../errors/api-error.js';
import { organizationOf, requirePermission } from './middleware.js';
import {
  hasPermission,
  organizationsFromClaim,
  type OrganizationRef,
  permissionsFromGroups,
  permissionsIn,
  type Principal,
  rolesFromClaims,
} from './principal.js';

const req = (header?: string) =>
  ({
    get: (n: string) => (n.toLowerCase() === 'x-aiplane-organization' ? header : undefined),
  }) as unknown as Request;
const principal = (roles: string[], orgs: OrganizationRef[]): Principal => ({
  userId: 'u',
  roles: new Set(roles),
  organizations: orgs,
  via: 'jwt',
});
const acme: OrganizationRef = {
  id: '11111111-1111-1111-1111-111111111111',
  alias: 'acme',
  permissions: ['can_access_api'],
};
const beta: OrganizationRef = {
  id: '22222222-2222-2222-2222-222222222222',
  alias: 'beta',
  permissions: ['can_access_api', 'can_edit_config'],
};

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
    assert.deepEqual(organizationsFromClaim({ acme: { id: acme.id }, old: {} }), [
      { ...acme, permissions: [] },
    ]);
    assert.deepEqual(
      organizationsFromClaim({
        beta: { id: beta.id, groups: ['/can_edit_config', '/can_access_api'] },
      }),
      [beta],
    );
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
      'a platform admin naming an organization in upper case acts in its lower-case id',
      principal(['platform-admin'], []),
      beta.id.toUpperCase(),
      beta.id,
    ],
    [
      'a member naming their organization in upper case acts in it',
      principal([], [acme, beta]),
      beta.id.toUpperCase(),
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

describe('permissions per organization (docs/adr/0022)', function () {
  it('reads permissions from organization group paths, a subgroup counting as its parent', function () {
    assert.deepEqual(
      permissionsFromGroups([
        '/can_edit_config/team-a',
        '/engineering',
        '/can_access_api',
        'can_manage_models',
        '/x/can_edit_config',
        7,
      ]),
      ['can_access_api', 'can_manage_models', 'can_edit_config'],
    );
    assert.deepEqual(permissionsFromGroups('/can_access_api'), []);
  });

  it('holds a permission in one organization and not in another', function () {
    const p = principal([], [acme, beta]);
    assert.equal(hasPermission(p, 'can_edit_config', beta.id), true);
    assert.equal(hasPermission(p, 'can_edit_config', acme.id), false);
    assert.equal(
      hasPermission(p, 'can_edit_config', '33333333-3333-3333-3333-333333333333'),
      false,
    );
    // Without an organization: held anywhere.
    assert.equal(hasPermission(p, 'can_edit_config'), true);
    assert.equal(hasPermission(p, 'can_manage_models'), false);
  });

  it('treats a realm role as a grant in every organization', function () {
    const p = principal(['can_manage_models'], [acme]);
    assert.deepEqual([...permissionsIn(p, acme.id)].sort(), [
      'can_access_api',
      'can_manage_models',
    ]);
    assert.equal(hasPermission(p, 'can_manage_models', beta.id), true);
    assert.equal(hasPermission(p, 'can_access_api', beta.id), false);
  });

  function guard(p: Principal, header?: string): string | undefined {
    const res = { locals: { principal: p } };
    return codeOf(() =>
      requirePermission('can_edit_config')(req(header), res as never, () => undefined),
    );
  }

  it('requirePermission checks the organization the request acts in', function () {
    const p = principal([], [acme, beta]);
    assert.equal(guard(p, beta.id), undefined);
    assert.equal(guard(p, 'acme'), 'permission_denied');
    // Several organizations and no header: held somewhere lets it on (the route then needs one).
    assert.equal(guard(p), undefined);
    assert.equal(guard(principal([], [acme])), 'permission_denied');
    // Naming an organization that is not the caller's is refused as such…
    const other = { ...acme, id: '33333333-3333-3333-3333-333333333333', alias: 'other' };
    assert.equal(guard(principal([], [beta]), other.id), 'organization_access_denied');
    // …unless the caller holds the permission nowhere: that is the refusal then.
    assert.equal(guard(principal([], [acme]), beta.id), 'permission_denied');
  });
});
