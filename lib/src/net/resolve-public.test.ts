import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import {
  type DnsResolver,
  type LookupAddress,
  type LookupAll,
  resolvePublicAddresses,
} from './resolve-public.js';

function fakeLookup(table: Record<string, string[]>): LookupAll & { calls: string[] } {
  const calls: string[] = [];
  const lookup = (host: string): Promise<LookupAddress[]> => {
    calls.push(host);
    const addresses = table[host];
    if (addresses === undefined) {
      return Promise.reject(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }),
      );
    }
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(lookup, { calls });
}

const dns = {
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.example': ['93.184.216.34', '10.0.0.5'],
  'mixed6.example': ['2606:4700::1', 'fd00::5'],
  'mapped.example': ['::ffff:169.254.169.254'],
  localhost: ['127.0.0.1', '::1'],
  'loopback-and-private.example': ['127.0.0.1', '10.0.0.1'],
  'empty.example': [],
  'twice.example': ['93.184.216.34', '93.184.216.34'],
};

describe('resolvePublicAddresses', () => {
  it('accepts a name whose every address is public and returns them all', async () => {
    const result = await resolvePublicAddresses('public.example', { lookup: fakeLookup(dns) });
    assert.deepEqual(result, {
      ok: true,
      addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
  });

  it('returns each address once', async () => {
    const result = await resolvePublicAddresses('twice.example', { lookup: fakeLookup(dns) });
    assert.deepEqual(result, { ok: true, addresses: ['93.184.216.34'] });
  });

  const refused: Array<[host: string, range: string]> = [
    ['mixed.example', 'private'],
    ['mixed6.example', 'unique-local'],
    ['mapped.example', 'ipv4-mapped'],
    ['localhost', 'loopback'],
  ];
  for (const [host, range] of refused) {
    it(`refuses ${host} as host_not_public because one address is ${range}`, async () => {
      const result = await resolvePublicAddresses(host, { lookup: fakeLookup(dns) });
      assert.equal(result.ok, false);
      assert.ok(!result.ok);
      assert.equal(result.rule, 'host_not_public');
      assert.equal(result.range, range);
      assert.match(result.message, /\(rule: host_not_public\)$/);
    });
  }

  it('does not reveal the resolved address in the message', async () => {
    const result = await resolvePublicAddresses('mixed.example', { lookup: fakeLookup(dns) });
    assert.ok(!result.ok);
    assert.doesNotMatch(result.message, /10\.0\.0\.5/);
  });

  for (const host of ['nowhere.example', 'empty.example']) {
    it(`answers host_unresolvable for ${host}`, async () => {
      const result = await resolvePublicAddresses(host, { lookup: fakeLookup(dns) });
      assert.ok(!result.ok);
      assert.equal(result.rule, 'host_unresolvable');
      assert.match(result.message, /\(rule: host_unresolvable\)$/);
    });
  }

  const literals: Array<[host: string, ok: boolean]> = [
    ['93.184.216.34', true],
    ['[2606:4700::1111]', true],
    ['2606:4700::1111', true],
    ['10.0.0.1', false],
    ['[::1]', false],
    ['[::ffff:7f00:1]', false],
    ['[64:ff9b::a9fe:a9fe]', false],
  ];
  for (const [host, ok] of literals) {
    it(`${ok ? 'accepts' : 'refuses'} the literal ${host} without a lookup`, async () => {
      const lookup = fakeLookup(dns);
      const result = await resolvePublicAddresses(host, { lookup });
      assert.equal(result.ok, ok);
      assert.deepEqual(lookup.calls, []);
    });
  }

  describe('with the test-only allowLoopback', () => {
    it('permits 127.0.0.1', async () => {
      const result = await resolvePublicAddresses('127.0.0.1', { allowLoopback: true });
      assert.deepEqual(result, { ok: true, addresses: ['127.0.0.1'] });
    });

    it('permits a name resolving to 127.0.0.1 and ::1', async () => {
      const result = await resolvePublicAddresses('localhost', {
        lookup: fakeLookup(dns),
        allowLoopback: true,
      });
      assert.deepEqual(result, { ok: true, addresses: ['127.0.0.1', '::1'] });
    });

    for (const host of [
      '10.0.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '[::ffff:127.0.0.1]',
      'loopback-and-private.example',
    ]) {
      it(`still refuses ${host}`, async () => {
        const result = await resolvePublicAddresses(host, {
          lookup: fakeLookup(dns),
          allowLoopback: true,
        });
        assert.ok(!result.ok);
        assert.equal(result.rule, 'host_not_public');
      });
    }
  });
});

const notFound = (host: string) =>
  Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
const noData = (host: string) =>
  Object.assign(new Error(`queryAaaa ENODATA ${host}`), { code: 'ENODATA' });

/** A resolver answering from tables, recording every query. */
function fakeResolver(
  a: Record<string, string[]>,
  aaaa: Record<string, string[]> = {},
): DnsResolver & { queries: string[] } {
  const queries: string[] = [];
  const answer = (table: Record<string, string[]>, type: string, host: string) => {
    queries.push(`${type} ${host}`);
    const found = table[host];
    if (found) return Promise.resolve(found);
    return Promise.reject(host in a || host in aaaa ? noData(host) : notFound(host));
  };
  return {
    queries,
    resolve4: ((host: string) => answer(a, 'A', host)) as DnsResolver['resolve4'],
    resolve6: ((host: string) => answer(aaaa, 'AAAA', host)) as DnsResolver['resolve6'],
  };
}

describe('resolvePublicAddresses through a DNS resolver (c-ares, not the thread pool)', () => {
  it('asks an injected resolver for A and AAAA and checks every answer', async () => {
    const resolver = fakeResolver(
      { 'public.example': ['93.184.216.34'] },
      { 'public.example': ['2606:2800:220:1:248:1893:25c8:1946'] },
    );
    const result = await resolvePublicAddresses('public.example', { resolver });
    assert.deepEqual(result, {
      ok: true,
      addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
    assert.deepEqual(resolver.queries.sort(), ['A public.example', 'AAAA public.example']);
  });

  it('resolves a name with A records only (AAAA answers ENODATA)', async () => {
    const resolver = fakeResolver({ 'v4.example': ['93.184.216.34'] });
    const result = await resolvePublicAddresses('v4.example', { resolver });
    assert.deepEqual(result, { ok: true, addresses: ['93.184.216.34'] });
  });

  it('refuses a name with one private AAAA record among public A records', async () => {
    const resolver = fakeResolver(
      { 'mixed.example': ['93.184.216.34'] },
      { 'mixed.example': ['fd00::5'] },
    );
    const result = await resolvePublicAddresses('mixed.example', { resolver });
    assert.ok(!result.ok);
    assert.equal(result.rule, 'host_not_public');
  });

  it('answers host_unresolvable when both queries fail', async () => {
    const result = await resolvePublicAddresses('nowhere.example', { resolver: fakeResolver({}) });
    assert.ok(!result.ok);
    assert.equal(result.rule, 'host_unresolvable');
  });

  it('does not ask the resolver for a literal IP', async () => {
    const resolver = fakeResolver({});
    for (const host of ['93.184.216.34', '[2606:4700::1111]', '10.0.0.1']) {
      await resolvePublicAddresses(host, { resolver });
    }
    assert.deepEqual(resolver.queries, []);
  });

  for (const host of ['localhost', 'LOCALHOST.', 'mcp.localhost']) {
    it(`takes ${host} as loopback without a query: refused, unless loopback is allowed`, async () => {
      const resolver = fakeResolver({ [host]: ['93.184.216.34'] });
      const refused = await resolvePublicAddresses(host, { resolver });
      assert.ok(!refused.ok);
      assert.equal(refused.range, 'loopback');
      const allowed = await resolvePublicAddresses(host, { resolver, allowLoopback: true });
      assert.deepEqual(allowed, { ok: true, addresses: ['127.0.0.1', '::1'] });
      assert.deepEqual(resolver.queries, []);
    });
  }

  describe('by default', () => {
    const original = {
      resolve4: Resolver.prototype.resolve4,
      resolve6: Resolver.prototype.resolve6,
    };
    const asked: string[] = [];
    before(() => {
      // The shared default is a dns.promises.Resolver: answer its queries here (no internet).
      Resolver.prototype.resolve4 = ((host: string) => {
        asked.push(`A ${host}`);
        return Promise.resolve(['93.184.216.34']);
      }) as Resolver['resolve4'];
      Resolver.prototype.resolve6 = ((host: string) => {
        asked.push(`AAAA ${host}`);
        return Promise.reject(noData(host));
      }) as Resolver['resolve6'];
    });
    after(() => {
      Resolver.prototype.resolve4 = original.resolve4;
      Resolver.prototype.resolve6 = original.resolve6;
    });

    it('resolves through a dns.promises.Resolver, not dns.lookup (getaddrinfo on the thread pool)', async () => {
      const result = await resolvePublicAddresses('mcp.invalid');
      assert.deepEqual(result, { ok: true, addresses: ['93.184.216.34'] });
      assert.deepEqual(asked.sort(), ['A mcp.invalid', 'AAAA mcp.invalid']);
    });
  });
});
