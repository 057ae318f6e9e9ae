import { type AddressRule, parseAddress } from './address-rules.js';
import type { BlockedRange } from './ip-ranges.js';
import {
  type ResolvePublicOptions,
  type ResolveRule,
  resolvePublicAddresses,
} from './resolve-public.js';

export type RemoteAddressRule = AddressRule | ResolveRule;

export type RemoteAddressCheck =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; rule: RemoteAddressRule; message: string; range?: BlockedRange };

/**
 * Every rule for a remote MCP address: the syntax rules, then that the host resolves only
 * to public addresses. The API runs it when an address is stored (failure: 400
 * mcp_server_address_invalid with `message`); the gateway runs it again at dial time and
 * should connect only to the returned `addresses`, since DNS may answer differently later.
 *
 * `url` is the parsed form for dialing; store the address string exactly as sent.
 */
export async function checkRemoteAddress(
  address: string,
  opts: ResolvePublicOptions = {},
): Promise<RemoteAddressCheck> {
  const parsed = parseAddress(address);
  if ('rule' in parsed) return { ok: false, rule: parsed.rule, message: parsed.message };
  const resolved = await resolvePublicAddresses(parsed.host, opts);
  if (!resolved.ok) return resolved;
  return { ok: true, url: parsed.url, addresses: resolved.addresses };
}
