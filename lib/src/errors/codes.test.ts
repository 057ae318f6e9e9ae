import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CODES } from './codes.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('error code table', function () {
  for (const [code, entry] of Object.entries(ERROR_CODES)) {
    it(`documents ${code} in docs/errors.md with HTTP ${entry.status}`, function () {
      const row = doc
        .split('\n')
        .find((line) => new RegExp(`^\\|\\s*\`${code}\`\\s*\\|`).test(line));
      assert.ok(row, `docs/errors.md has no row for ${code}`);
      const cells = row.split('|').map((c) => c.trim());
      assert.equal(cells[2], String(entry.status));
      assert.equal(cells[3], 'jsonRpc' in entry ? String(entry.jsonRpc) : '');
    });
  }

  it('lists no code in docs/errors.md that the table lacks', function () {
    const documented = [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]);
    assert.deepEqual(
      documented.filter((c) => !(c! in ERROR_CODES)),
      [],
    );
  });

  it('uses the spec’s JSON-RPC codes for the gateway refusals', function () {
    assert.equal(ERROR_CODES.mcp_server_access_denied.jsonRpc, -32002);
    assert.equal(ERROR_CODES.mcp_credential_not_linked.jsonRpc, -32003);
    assert.equal(ERROR_CODES.mcp_credential_rejected.jsonRpc, -32004);
    assert.equal(ERROR_CODES.mcp_credential_expired.jsonRpc, -32005);
  });
});
