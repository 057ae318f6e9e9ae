import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type BlockedRange, blockedRange } from './ip-ranges.js';

/** One resolved address, as `dns.lookup(host, { all: true })` answers. */
export interface LookupAddress {
  address: string;
  family: number;
}

export type LookupAll = (host: string) => Promise<LookupAddress[]>;

/** What resolution needs of a `dns.promises.Resolver` (tests inject one). */
export type DnsResolver = Pick<Resolver, 'resolve4' | 'resolve6'>;

export interface ResolvePublicOptions {
  /** Replaces the resolver entirely; tests inject one so they never touch DNS. */
  lookup?: LookupAll;
  /** The resolver to ask (default: one shared `dns.promises.Resolver`, see {@link resolverLookup}). */
  resolver?: DnsResolver;
  /**
   * TEST ONLY. Accepts loopback addresses (127.0.0.0/8, ::1) so tests can point a remote
   * server at an SDK server on 127.0.0.1. Every other blocked range is still refused.
   * Never set this from configuration in a deployment.
   */
  allowLoopback?: boolean;
}

export type ResolveRule = 'host_not_public' | 'host_unresolvable';

export type ResolvePublicResult =
  | { ok: true; addresses: string[] }
  | {
      ok: false;
      rule: ResolveRule;
      message: string;
      /** Why the host was refused, for logs; the message deliberately leaves it out. */
      range?: BlockedRange;
    };

/** `localhost` and `*.localhost` (RFC 6761): loopback, never asked of DNS. */
const LOCALHOST = /^(?:.+\.)?localhost\.?$/i;
const LOCALHOST_ADDRESSES: LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * Resolution through c-ares (`dns.promises.Resolver`: A and AAAA queries on the event loop)
 * instead of `dns.lookup`, whose getaddrinfo runs on the libuv thread pool: a slow or silent
 * DNS server would otherwise hold the pool's 4 threads and stall file I/O, crypto and zlib of
 * the whole process. What changes (docs/adr/0010, "DNS at dial time"): `/etc/hosts` and
 * nsswitch are not read, and no search domain is appended (remote MCP servers are public
 * names); `localhost` and `*.localhost` are loopback without a query, as RFC 6761 wants, so
 * they stay refused unless loopback is allowed (tests). A name with A records only (or AAAA
 * only) resolves to those; one whose both queries fail is unresolvable.
 */
export function resolverLookup(resolver: DnsResolver): LookupAll {
  return async (host) => {
    if (LOCALHOST.test(host)) return LOCALHOST_ADDRESSES;
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const found: LookupAddress[] = [];
    if (v4.status === 'fulfilled') for (const a of v4.value) found.push({ address: a, family: 4 });
    if (v6.status === 'fulfilled') for (const a of v6.value) found.push({ address: a, family: 6 });
    if (found.length === 0 && v4.status === 'rejected') throw v4.reason;
    return found;
  };
}

/** Per query: 3 s per try, 2 tries (c-ares' own default waits far longer). */
const RESOLVER_OPTIONS = { timeout: 3000, tries: 2 };
let shared: LookupAll | undefined;
const defaultLookup: LookupAll = (host) =>
  (shared ??= resolverLookup(new Resolver(RESOLVER_OPTIONS)))(host);

/**
 * Resolves `host` to every address it has and accepts it only when ALL of them are public:
 * a name with one public and one private address is refused, since any of them may be
 * dialed. A literal IP (IPv6 with or without brackets) is checked without a lookup.
 *
 * The message names the rule but not the resolved addresses or their range, so callers
 * cannot use it to map internal DNS; `range` carries the reason for the log.
 */
export async function resolvePublicAddresses(
  host: string,
  opts: ResolvePublicOptions = {},
): Promise<ResolvePublicResult> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: string[];
  if (isIP(bare) !== 0) {
    addresses = [bare];
  } else {
    try {
      const lookup = opts.lookup ?? (opts.resolver ? resolverLookup(opts.resolver) : defaultLookup);
      const found = await lookup(bare);
      addresses = [...new Set(found.map((entry) => entry.address))];
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) {
      return {
        ok: false,
        rule: 'host_unresolvable',
        message: `address host ${bare} could not be resolved (rule: host_unresolvable)`,
      };
    }
  }
  for (const address of addresses) {
    const range = blockedRange(address);
    if (range === undefined || (range === 'loopback' && opts.allowLoopback === true)) continue;
    return {
      ok: false,
      rule: 'host_not_public',
      message: `address host ${bare} must resolve only to public addresses (rule: host_not_public)`,
      range,
    };
  }
  return { ok: true, addresses };
}
