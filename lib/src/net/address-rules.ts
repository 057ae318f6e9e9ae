import { isIPv4 } from 'node:net';

/** The most characters an address may have (spec: Remote runtime fields). */
export const MAX_ADDRESS_LENGTH = 2048;

/** Stable ids of the syntax rules a remote MCP address must satisfy. */
export type AddressRule =
  | 'too_long'
  | 'characters'
  | 'not_absolute_url'
  | 'scheme'
  | 'userinfo'
  | 'host'
  | 'numeric_host'
  | 'path'
  | 'fragment';

/** A broken rule; `message` names the rule, e.g. "... (rule: scheme)". */
export interface AddressProblem {
  rule: AddressRule;
  message: string;
}

/** A syntactically valid address: the parsed URL and the host to resolve (no brackets). */
export interface ParsedAddress {
  url: URL;
  host: string;
}

const MESSAGES: Record<AddressRule, string> = {
  too_long: `address must be at most ${MAX_ADDRESS_LENGTH} characters`,
  characters: 'address must not contain whitespace, control characters or backslashes',
  not_absolute_url: 'address must be an absolute URL starting with http:// or https://',
  scheme: 'address must use http or https',
  userinfo: 'address must not include a username or password',
  host: 'address must include a host',
  numeric_host:
    'address host must be a name, a dotted-quad IPv4 address (like 203.0.113.7) or a bracketed IPv6 address',
  path: 'address must include a path (like https://example.com/mcp)',
  fragment: 'address must not include a fragment (#...)',
};

export function addressProblem(rule: AddressRule): AddressProblem {
  return { rule, message: `${MESSAGES[rule]} (rule: ${rule})` };
}

/**
 * Checks the syntax of a remote MCP server address; undefined when every rule holds.
 * The address is stored exactly as sent, so this only judges it and never rewrites it.
 */
export function checkAddressSyntax(address: string): AddressProblem | undefined {
  const parsed = parseAddress(address);
  return 'rule' in parsed ? parsed : undefined;
}

/**
 * Parses an address under the rules, first broken rule wins:
 *
 * - `too_long`: more than 2048 characters.
 * - `characters`: whitespace, control characters or `\`. The WHATWG parser silently strips
 *   or rewrites these, so what is stored would differ from what is dialed.
 * - `not_absolute_url`: not parseable, or not literally `<scheme>://` (the WHATWG parser
 *   also accepts `http:host/x` and `http:///host/x`).
 * - `scheme`: anything but http and https (javascript:, ftp:, file:, ...).
 * - `userinfo`: any `@` in the authority, even with an empty username.
 * - `host`: an empty host.
 * - `numeric_host`: a host the WHATWG parser reads as an IPv4 number but is not written as
 *   the canonical dotted quad it becomes (2130706433, 0177.0.0.1, 0x7f.1, 127.1,
 *   127.0.0.1., %31%32%37.0.0.1). Any host the parser accepts that is not an IPv4 number
 *   ends in a non-numeric label, so no resolver reads it as a number either.
 * - `path`: the path is empty or just `/`; an MCP endpoint lives at a path (`/mcp`).
 * - `fragment`: a `#...` part; it is never sent to the server, so it has no meaning in a
 *   dial target. A query string is allowed.
 */
export function parseAddress(address: string): ParsedAddress | AddressProblem {
  if (address.length > MAX_ADDRESS_LENGTH) return addressProblem('too_long');
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f\\]/u.test(address)) return addressProblem('characters');
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return addressProblem(
      /^[a-z][a-z0-9+.-]*:/iu.test(address) ? schemeOrNotAbsolute(address) : 'not_absolute_url',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return addressProblem('scheme');
  const prefix = `${url.protocol}//`;
  if (address.slice(0, prefix.length).toLowerCase() !== prefix) {
    return addressProblem('not_absolute_url');
  }
  const afterScheme = address.slice(prefix.length);
  const authority = afterScheme.slice(0, authorityEnd(afterScheme));
  if (authority.includes('@') || url.username !== '' || url.password !== '') {
    return addressProblem('userinfo');
  }
  const rawHost = hostOf(authority);
  if (rawHost === '' || url.hostname === '') return addressProblem('host');
  if (isIPv4(url.hostname) && rawHost.toLowerCase() !== url.hostname) {
    return addressProblem('numeric_host');
  }
  if (url.pathname === '' || url.pathname === '/') return addressProblem('path');
  if (address.includes('#')) return addressProblem('fragment');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { url, host };
}

/** An unparseable address with a scheme: a wrong scheme is named before a broken URL. */
function schemeOrNotAbsolute(address: string): AddressRule {
  const scheme = address.slice(0, address.indexOf(':')).toLowerCase();
  return scheme === 'http' || scheme === 'https' ? 'not_absolute_url' : 'scheme';
}

function authorityEnd(afterScheme: string): number {
  const end = afterScheme.search(/[/?#]/u);
  return end === -1 ? afterScheme.length : end;
}

/** The host text of an authority without userinfo: drops a `:port`, keeps IPv6 brackets. */
function hostOf(authority: string): string {
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    return close === -1 ? authority : authority.slice(0, close + 1);
  }
  const colon = authority.lastIndexOf(':');
  return colon === -1 ? authority : authority.slice(0, colon);
}
