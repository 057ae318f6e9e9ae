import assert from 'node:assert/strict';
import { type AddressRule, checkAddressSyntax, parseAddress } from './address-rules.js';

describe('checkAddressSyntax', () => {
  const valid: string[] = [
    'https://mcp.example.com/mcp',
    'http://mcp.example.com/mcp',
    'HTTPS://MCP.Example.com/mcp',
    'https://mcp.example.com:8443/v1/mcp?tenant=a',
    'https://203.0.113.7/mcp',
    'https://[2001:db8::1]/mcp',
    'https://[2001:db8::1]:8443/mcp',
    'https://mcp.example.com//',
    'https://xn--bcher-kva.example/mcp',
    `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`,
  ];

  for (const address of valid) {
    it(`accepts ${address.length > 80 ? `a ${address.length}-character address` : address}`, () => {
      assert.equal(checkAddressSyntax(address), undefined);
    });
  }

  const invalid: Array<[address: string, rule: AddressRule, why: string]> = [
    [
      `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`,
      'too_long',
      '2049 characters',
    ],
    ['https://example.com/mcp ', 'characters', 'a trailing space the parser would strip'],
    [' https://example.com/mcp', 'characters', 'a leading space'],
    ['https://exa\tmple.com/mcp', 'characters', 'a tab the parser would remove'],
    ['https://example.com/m\ncp', 'characters', 'a newline'],
    ['https:\\\\example.com\\mcp', 'characters', 'backslashes read as slashes'],
    ['/mcp', 'not_absolute_url', 'a relative path'],
    ['example.com/mcp', 'not_absolute_url', 'no scheme'],
    ['', 'not_absolute_url', 'an empty string'],
    ['http:example.com/mcp', 'not_absolute_url', 'no // after the scheme'],
    ['http:/example.com/mcp', 'not_absolute_url', 'one slash after the scheme'],
    ['https://exa mple.com/mcp'.replace(' ', '%'), 'not_absolute_url', 'a broken host'],
    ['javascript:alert(1)', 'scheme', 'javascript:'],
    ['ftp://example.com/mcp', 'scheme', 'ftp:'],
    ['file:///etc/passwd', 'scheme', 'file:'],
    ['ws://example.com/mcp', 'scheme', 'ws:'],
    ['gopher://[bad/mcp', 'scheme', 'an unparseable non-http URL'],
    ['https://user:pass@example.com/mcp', 'userinfo', 'user and password'],
    ['https://user@example.com/mcp', 'userinfo', 'a username'],
    ['https://:pass@example.com/mcp', 'userinfo', 'a password'],
    ['https://@example.com/mcp', 'userinfo', 'an empty userinfo'],
    ['http:///example.com/mcp', 'host', 'an empty authority the parser would skip'],
    ['https://:443/mcp', 'not_absolute_url', 'a port without host'],
    ['http://2130706433/mcp', 'numeric_host', 'a decimal IPv4 host'],
    ['http://0177.0.0.1/mcp', 'numeric_host', 'an octal IPv4 host'],
    ['http://0x7f.1/mcp', 'numeric_host', 'a hex IPv4 host'],
    ['http://0x7f000001/mcp', 'numeric_host', 'a single hex IPv4 number'],
    ['http://127.1/mcp', 'numeric_host', 'a short IPv4 host'],
    ['http://10.1/mcp', 'numeric_host', 'a short private IPv4 host'],
    ['http://127.0.0.1./mcp', 'numeric_host', 'a dotted quad with a trailing dot'],
    ['http://08.8.8.8/mcp', 'not_absolute_url', 'an invalid octal part'],
    ['http://010.0.0.1/mcp', 'numeric_host', 'a zero-padded dotted quad'],
    ['http://%31%32%37.0.0.1/mcp', 'numeric_host', 'a percent-encoded IPv4 host'],
    ['https://example.com', 'path', 'no path'],
    ['https://example.com/', 'path', 'a bare /'],
    ['https://example.com?x=1', 'path', 'a query but no path'],
    ['https://example.com/./', 'path', 'a path that resolves to /'],
    ['https://example.com/mcp#section', 'fragment', 'a fragment'],
    ['https://example.com/mcp#', 'fragment', 'an empty fragment'],
  ];

  for (const [address, rule, why] of invalid) {
    it(`refuses an address with ${why} under rule ${rule}`, () => {
      const problem = checkAddressSyntax(address);
      assert.equal(problem?.rule, rule);
      assert.match(problem.message, new RegExp(`\\(rule: ${rule}\\)$`));
    });
  }

  it('words the scheme rule for a person', () => {
    assert.equal(
      checkAddressSyntax('ftp://example.com/mcp')?.message,
      'address must use http or https (rule: scheme)',
    );
  });
});

describe('parseAddress', () => {
  it('accepts an address in a non-canonical form as sent and parses it for dialing', () => {
    const address = 'HTTPS://MCP.Example.com:443/a/../MCP?q=%7e';
    assert.equal(checkAddressSyntax(address), undefined);
    const parsed = parseAddress(address);
    assert.ok(!('rule' in parsed));
    assert.notEqual(parsed.url.href, address);
    assert.equal(parsed.url.href, 'https://mcp.example.com/MCP?q=%7e');
  });

  it('gives the host of an IPv6 literal without brackets', () => {
    const parsed = parseAddress('https://[::ffff:127.0.0.1]:8443/mcp');
    assert.ok(!('rule' in parsed));
    assert.equal(parsed.host, '::ffff:7f00:1');
  });

  it('gives a name host as the parser lowercases it', () => {
    const parsed = parseAddress('https://MCP.Example.COM/mcp');
    assert.ok(!('rule' in parsed));
    assert.equal(parsed.host, 'mcp.example.com');
  });
});
