import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Why an IP address is not a public destination. Each id names one range (or one way of
 * embedding an IPv4 address in IPv6) that the gateway must never dial on a tenant's behalf.
 */
export type BlockedRange =
  | 'invalid'
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'unique-local'
  | 'site-local'
  | 'discard'
  | 'ipv4-mapped'
  | 'ipv4-compatible'
  | 'nat64'
  | '6to4'
  | 'teredo';

type Family = 'ipv4' | 'ipv6';
type Subnet = readonly [network: string, prefix: number, family: Family];

/**
 * Ranges checked in order; the first match names the reason, so a narrow range (metadata,
 * broadcast, unspecified) comes before the wide range that contains it.
 *
 * IPv4-mapped, IPv4-compatible, NAT64, 6to4 and Teredo addresses are decoded before this
 * table is consulted (node's BlockList matches ::ffff:a.b.c.d against IPv4 rules, which
 * would hide the embedding from the reason).
 */
const RANGES: ReadonlyArray<readonly [BlockedRange, readonly Subnet[]]> = [
  [
    'metadata',
    [
      ['169.254.169.254', 32, 'ipv4'], // AWS, GCP, Azure, OpenStack (inside link-local)
      ['100.100.100.200', 32, 'ipv4'], // Alibaba Cloud (inside CGNAT)
      ['168.63.129.16', 32, 'ipv4'], // Azure wire server (a routable address)
      ['fd00:ec2::254', 128, 'ipv6'], // AWS IMDS over IPv6 (inside unique-local)
    ],
  ],
  ['broadcast', [['255.255.255.255', 32, 'ipv4']]],
  [
    'unspecified',
    [
      ['0.0.0.0', 32, 'ipv4'],
      ['::', 128, 'ipv6'],
    ],
  ],
  ['this-network', [['0.0.0.0', 8, 'ipv4']]],
  [
    'loopback',
    [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
    ],
  ],
  ['cgnat', [['100.64.0.0', 10, 'ipv4']]],
  [
    'link-local',
    [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  ],
  [
    'documentation',
    [
      ['192.0.2.0', 24, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['2001:db8::', 32, 'ipv6'],
      ['3fff::', 20, 'ipv6'],
    ],
  ],
  [
    'benchmarking',
    [
      ['198.18.0.0', 15, 'ipv4'],
      ['2001:2::', 48, 'ipv6'],
    ],
  ],
  [
    'multicast',
    [
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  ],
  ['unique-local', [['fc00::', 7, 'ipv6']]],
  ['site-local', [['fec0::', 10, 'ipv6']]],
  ['discard', [['100::', 64, 'ipv6']]],
  [
    'reserved',
    [
      ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
      ['192.88.99.0', 24, 'ipv4'], // deprecated 6to4 relay anycast
      ['240.0.0.0', 4, 'ipv4'], // future use
      ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
      ['2001:10::', 28, 'ipv6'], // deprecated ORCHID
    ],
  ],
];

const LISTS: ReadonlyArray<readonly [BlockedRange, BlockList]> = RANGES.map(([reason, subnets]) => {
  const list = new BlockList();
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family);
  return [reason, list] as const;
});

/** Global unicast: outside 2000::/3 nothing is allocated for public use. */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/**
 * The range that makes `ip` unfit to dial, or undefined when it is a public address.
 * `ip` is a literal IPv4 or IPv6 address (no brackets); an IPv6 zone id (`%eth0`) is
 * ignored. Anything that is not an IP literal answers 'invalid'.
 *
 * Embedded IPv4 addresses: ::ffff:a.b.c.d (mapped) and 64:ff9b::/96 (NAT64) are checked
 * as the IPv4 address they carry, and refused as 'ipv4-mapped' / 'nat64' when that
 * address is not public; 2002::/16 (6to4) and 2001::/32 (Teredo server and client) the
 * same way. The deprecated IPv4-compatible form ::a.b.c.d is always refused.
 */
export function blockedRange(ip: string): BlockedRange | undefined {
  if (isIPv4(ip)) return blockedByTable(ip, 'ipv4');
  const bare = ip.split('%', 1)[0] ?? '';
  if (!isIPv6(bare)) return 'invalid';
  const bytes = ipv6Bytes(bare);
  if (bytes === undefined) return 'invalid';

  const embedded = embeddedIPv4(bytes);
  if (embedded?.kind === 'ipv4-compatible') return embedded.kind;
  if (embedded !== undefined) {
    return blockedRange(embedded.ipv4) === undefined ? undefined : embedded.kind;
  }
  const teredo = teredoIPv4s(bytes);
  if (teredo !== undefined) {
    return teredo.every((v4) => blockedRange(v4) === undefined) ? undefined : 'teredo';
  }
  const direct = blockedByTable(bare, 'ipv6');
  if (direct !== undefined) return direct;
  return GLOBAL_UNICAST.check(bare, 'ipv6') ? undefined : 'reserved';
}

/** True when `ip` is an IP literal outside every blocked range. */
export function isPublicAddress(ip: string): boolean {
  return blockedRange(ip) === undefined;
}

function blockedByTable(ip: string, family: Family): BlockedRange | undefined {
  for (const [reason, list] of LISTS) {
    if (list.check(ip, family)) return reason;
  }
  return undefined;
}

type EmbeddingKind = 'ipv4-mapped' | 'ipv4-compatible' | 'nat64' | '6to4';

function embeddedIPv4(bytes: Uint8Array): { kind: EmbeddingKind; ipv4: string } | undefined {
  const zeros = (from: number, to: number): boolean =>
    bytes.subarray(from, to).every((b) => b === 0);
  const tail = dottedQuad(bytes, 12);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return { kind: 'ipv4-mapped', ipv4: tail };
  }
  if (zeros(0, 12)) {
    // :: and ::1 are named by the table; every other ::a.b.c.d is the deprecated form.
    if (zeros(12, 15) && (bytes[15] === 0 || bytes[15] === 1)) return undefined;
    return { kind: 'ipv4-compatible', ipv4: tail };
  }
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    if (zeros(4, 12)) return { kind: 'nat64', ipv4: tail };
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return { kind: '6to4', ipv4: dottedQuad(bytes, 2) };
  return undefined;
}

/** Teredo (2001:0::/32): the server IPv4 in bits 32-63, the client IPv4 inverted at the end. */
function teredoIPv4s(bytes: Uint8Array): [server: string, client: string] | undefined {
  if (!(bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0)) {
    return undefined;
  }
  const client = Uint8Array.from(bytes.subarray(12, 16), (b) => b ^ 0xff);
  return [dottedQuad(bytes, 4), dottedQuad(client, 0)];
}

function dottedQuad(bytes: Uint8Array, at: number): string {
  return Array.from(bytes.subarray(at, at + 4)).join('.');
}

/** The 16 bytes of an IPv6 literal already accepted by `isIPv6` (no zone id). */
function ipv6Bytes(ip: string): Uint8Array | undefined {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    // Rewrite a trailing dotted quad (::ffff:1.2.3.4) as two hex groups (::ffff:102:304).
    const octets = tail.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) {
      return undefined;
    }
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => parseInt(group, 16));
  const left = parse(halves[0] ?? '');
  const right = halves.length === 2 ? parse(halves[1] ?? '') : [];
  const fill = halves.length === 2 ? 8 - left.length - right.length : 0;
  if (fill < 0) return undefined;
  const groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) {
    return undefined;
  }
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}
