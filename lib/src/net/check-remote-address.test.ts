import assert from 'node:assert/strict';
import { checkRemoteAddress } from './check-remote-address.js';
import type { LookupAddress } from './resolve-public.js';

const lookup = (host: string): Promise<LookupAddress[]> => {
  const table: Record<string, string> = {
    'mcp.example.com': '93.184.216.34',
    'internal.example.com': '10.1.2.3',
  };
  const address = table[host];
  return address === undefined
    ? Promise.reject(new Error(`getaddrinfo ENOTFOUND ${host}`))
    : Promise.resolve([{ address, family: 4 }]);
};

describe('checkRemoteAddress', () => {
  it('accepts a public https address and returns the parsed URL and addresses', async () => {
    const result = await checkRemoteAddress('https://mcp.example.com/mcp', { lookup });
    assert.ok(result.ok);
    assert.equal(result.url.href, 'https://mcp.example.com/mcp');
    assert.deepEqual(result.addresses, ['93.184.216.34']);
  });

  const refused: Array<[address: string, rule: string]> = [
    ['ftp://mcp.example.com/mcp', 'scheme'],
    ['https://mcp.example.com/', 'path'],
    ['http://2130706433/mcp', 'numeric_host'],
    ['https://internal.example.com/mcp', 'host_not_public'],
    ['https://missing.example.com/mcp', 'host_unresolvable'],
    ['http://169.254.169.254/latest/meta-data', 'host_not_public'],
    ['http://[::ffff:127.0.0.1]/mcp', 'host_not_public'],
  ];
  for (const [address, rule] of refused) {
    it(`refuses ${address} naming rule ${rule} in the message`, async () => {
      const result = await checkRemoteAddress(address, { lookup });
      assert.ok(!result.ok);
      assert.equal(result.rule, rule);
      assert.ok(result.message.endsWith(`(rule: ${rule})`), result.message);
    });
  }

  it('checks syntax before it resolves anything', async () => {
    const calls: string[] = [];
    const result = await checkRemoteAddress('https://user:secret@mcp.example.com/mcp', {
      lookup: (host) => {
        calls.push(host);
        return lookup(host);
      },
    });
    assert.ok(!result.ok);
    assert.equal(result.rule, 'userinfo');
    assert.doesNotMatch(result.message, /secret/);
    assert.deepEqual(calls, []);
  });

  it('permits a loopback SDK server only when the test opts in', async () => {
    const address = 'http://127.0.0.1:3001/mcp';
    assert.equal((await checkRemoteAddress(address, { lookup })).ok, false);
    assert.equal((await checkRemoteAddress(address, { lookup, allowLoopback: true })).ok, true);
  });
});
