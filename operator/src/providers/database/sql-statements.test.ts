import assert from 'node:assert/strict';
import { databaseNames } from './database-names.js';
import { type StatementInput, type StatementName, statements } from './sql-statements.js';

const names = Object.keys(statements) as StatementName[];

function input(name: string): StatementInput {
  return {
    role: name,
    database: name,
    marker: "aiplane:tenant-uid=0b6f'; DROP ROLE x; --",
    passwordVerifier: "SCRAM-SHA-256$4096:c2FsdA==$it's:fine",
  };
}

/** The text with every quoted occurrence of `name` removed. */
function withoutQuoted(sql: string, name: string): string {
  return sql.replaceAll(`"${name.replaceAll('"', '""')}"`, '');
}

describe('SQL statements', () => {
  for (const slug of ['acme', 'my-team', `x-${'y'.repeat(60)}z`]) {
    const { role } = databaseNames(slug);
    it(`quotes every occurrence of the name derived from ${slug.slice(0, 12)}… in every statement`, () => {
      for (const statement of names) {
        const sql = statements[statement](input(role));
        assert.ok(sql.includes(`"${role}"`), `${statement} does not name "${role}": ${sql}`);
        assert.ok(
          !withoutQuoted(sql, role).includes(role),
          `${statement} has the name unquoted: ${sql}`,
        );
      }
    });
  }

  it('escapes a double quote inside a name instead of ending the identifier', () => {
    const hostile = 'evil"; DROP DATABASE postgres; --';
    for (const statement of names) {
      const sql = statements[statement](input(hostile));
      assert.ok(sql.includes('"evil""; DROP DATABASE postgres; --"'), `${statement}: ${sql}`);
      assert.ok(!withoutQuoted(sql, hostile).includes('evil'), `${statement}: ${sql}`);
    }
  });

  it('writes comments and password verifiers as escaped literals', () => {
    const value = input('tenant_acme');
    assert.equal(
      statements.commentOnRole(value),
      `COMMENT ON ROLE "tenant_acme" IS 'aiplane:tenant-uid=0b6f''; DROP ROLE x; --'`,
    );
    assert.equal(
      statements.setRolePassword(value),
      `ALTER ROLE "tenant_acme" WITH LOGIN PASSWORD 'SCRAM-SHA-256$4096:c2FsdA==$it''s:fine'`,
    );
  });

  it('creates a login role without superuser, createdb or createrole', () => {
    const sql = statements.createRole(input('tenant_acme'));
    for (const attribute of ['LOGIN', 'NOSUPERUSER', 'NOCREATEDB', 'NOCREATEROLE']) {
      assert.match(sql, new RegExp(`\\b${attribute}\\b`));
    }
  });
});
