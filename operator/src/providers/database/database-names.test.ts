import assert from 'node:assert/strict';
import { databaseNames, MAX_IDENTIFIER_BYTES } from './database-names.js';

const slug56 = `a${'b'.repeat(54)}c`;
const slug57 = `a${'b'.repeat(55)}c`;
const slug63 = `x-${'y'.repeat(60)}z`;

describe('databaseNames', () => {
  const cases: [string, string, string | RegExp][] = [
    ['a short slug', 'acme', 'tenant_acme'],
    ['a slug with dashes', 'my-big-team', 'tenant_my_big_team'],
    ['a digit-only slug', '42', 'tenant_42'],
    ['a 56-character slug (the longest kept whole)', slug56, `tenant_${slug56}`],
    ['a 57-character slug', slug57, new RegExp(`^tenant__a${'b'.repeat(43)}_[0-9a-f]{10}$`)],
    ['a 63-character slug', slug63, new RegExp(`^tenant__x_${'y'.repeat(42)}_[0-9a-f]{10}$`)],
  ];
  for (const [what, slug, expected] of cases) {
    it(`names the database and role for ${what}`, () => {
      const names = databaseNames(slug);
      if (typeof expected === 'string') assert.equal(names.database, expected);
      else assert.match(names.database, expected);
      assert.equal(names.role, names.database);
      assert.ok(Buffer.byteLength(names.database) <= MAX_IDENTIFIER_BYTES);
      assert.match(names.database, /^[a-z0-9_]+$/);
    });
  }

  it('gives the same names for the same slug every time', () => {
    assert.deepEqual(databaseNames(slug63), databaseNames(slug63));
  });

  it('keeps long slugs that share their first 60 characters apart', () => {
    const base = 'a'.repeat(60);
    const names = ['bbb', 'bbc', 'c-d'].map((end) => databaseNames(`${base}${end}`).database);
    assert.equal(new Set(names).size, 3);
  });

  it('never gives a short slug the name of a long one', () => {
    const long = databaseNames(slug63).database;
    // The short slug that would spell the hashed name after "tenant_" must start with '-'.
    const spelled = long.slice('tenant_'.length).replaceAll('_', '-');
    assert.ok(spelled.startsWith('-'));
    assert.throws(() => databaseNames(spelled), /not a DNS label/);
  });

  for (const bad of ['', 'Acme', 'acme-', '-acme', 'ac_me', 'ac.me', 'a'.repeat(64), 'x"; DROP']) {
    it(`refuses the slug ${JSON.stringify(bad)}`, () => {
      assert.throws(() => databaseNames(bad), /not a DNS label of at most 63 characters/);
    });
  }
});
