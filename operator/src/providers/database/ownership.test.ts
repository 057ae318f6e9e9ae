import assert from 'node:assert/strict';
import {
  databaseOwnership,
  type ObservedDatabase,
  type Ownership,
  ownershipMarker,
  roleOwnership,
} from './ownership.js';

const UID = '7d1c3f0e-0000-4000-8000-000000000001';
const OTHER = '7d1c3f0e-0000-4000-8000-000000000002';
const ROLE = 'tenant_acme';

describe('ownershipMarker', () => {
  it('records the tenant uid', () => {
    assert.equal(ownershipMarker(UID), `aiplane:tenant-uid=${UID}`);
  });

  it('refuses an empty uid', () => {
    assert.throws(() => ownershipMarker(' '), /uid is required/);
  });
});

describe('roleOwnership', () => {
  const cases: [string, string | null | undefined, Ownership][] = [
    ['no role', undefined, 'absent'],
    ['a role marked with our uid', ownershipMarker(UID), 'ours'],
    ['a role marked with another uid', ownershipMarker(OTHER), 'foreign'],
    ['a role without a comment', null, 'foreign'],
    ['a role with an unrelated comment', 'created by hand', 'foreign'],
  ];
  for (const [what, comment, expected] of cases) {
    it(`calls ${what} ${expected}`, () => {
      const role = comment === undefined ? undefined : { comment, canLogin: true };
      assert.equal(roleOwnership(role, UID), expected);
    });
  }
});

describe('databaseOwnership', () => {
  const marked = ownershipMarker(UID);
  const cases: [string, ObservedDatabase | undefined, Ownership, Ownership][] = [
    ['no database', undefined, 'ours', 'absent'],
    ['a database marked with our uid', { comment: marked, owner: ROLE }, 'ours', 'ours'],
    ['our marked database owned by someone else', { comment: marked, owner: 'x' }, 'ours', 'ours'],
    [
      'an unmarked database owned by our role (crash after CREATE DATABASE)',
      { comment: null, owner: ROLE },
      'ours',
      'ours',
    ],
    [
      'an unmarked database owned by a same-named role that is not ours',
      { comment: null, owner: ROLE },
      'foreign',
      'foreign',
    ],
    [
      'an unmarked database owned by another role',
      { comment: null, owner: 'postgres' },
      'ours',
      'foreign',
    ],
    [
      'a database marked with another uid, owned by our role',
      { comment: ownershipMarker(OTHER), owner: ROLE },
      'ours',
      'foreign',
    ],
  ];
  for (const [what, database, role, expected] of cases) {
    it(`calls ${what} ${expected}`, () => {
      assert.equal(databaseOwnership(database, { name: ROLE, ownership: role }, UID), expected);
    });
  }
});
