import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type BlockedRange, blockedRange } from './ip-ranges.js';

/** One resolved address, as `dns.lookup(host, { all: true })` answers. */
export interface LookupAddress {
  address: string;
  family: number;
}

export type LookupAll = (host: string) => Promise<LookupAddress[]>;

export interface ResolvePublicOptions {
  /** Replaces `dns.lookup(host, { all: true })`; tests inject one so they never touch DNS. */
  lookup?: LookupAll;
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

const defaultLookup: LookupAll = (host) => dnsLookup(host, { all: true, verbatim: true });

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
      const found = await (opts.lookup ?? defaultLookup)(bare);
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
