import { isIP, type LookupFunction } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, buildConnector, fetch as undiciFetch, request as undiciRequest } from 'undici';
import type { BlockedRange } from '../../net/ip-ranges.js';
import {
  type LookupAll,
  type ResolveRule,
  resolvePublicAddresses,
} from '../../net/resolve-public.js';

export type { FetchLike };

export interface PinnedFetchOptions {
  /**
   * TEST ONLY. Lets tests dial an MCP server on 127.0.0.1; every other blocked range is
   * still refused. Never set this from configuration in a deployment.
   */
  allowLoopback: boolean;
  /** Replaces `dns.lookup(host, { all: true })`; tests inject one so they never touch DNS. */
  lookup?: LookupAll;
  /** How long establishing one TCP (and TLS) connection may take; undici's default is 10 s. */
  connectTimeoutMs?: number;
  /**
   * `refuse` (default): a redirect rejects with RedirectRefusedError. `return`: the 3xx answer
   * is returned unfollowed, for a caller that checks its Location and asks again through this
   * same fetch (whose dial-time check then applies to the new host: model downloads).
   */
  redirects?: 'refuse' | 'return';
}

/** An answer of {@link PinnedFetch.request}: status, headers, and the body as Node reads it. */
export interface LeanResponse {
  status: number;
  /** A header's value (the first, when repeated); undefined when absent. */
  header(name: string): string | undefined;
  /** The body: iterate it, or read it whole once; reading nothing leaves the connection busy
   * until the body is cancelled or the signal aborts. */
  body: AsyncIterable<Uint8Array> & {
    text(): Promise<string>;
    json(): Promise<unknown>;
  };
}

export interface LeanRequestInit {
  method: string;
  headers: Record<string, string>;
  /** Text (JSON) or bytes (a multipart form: speech transcriptions). */
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/** A fetch that dials only public addresses and never follows a redirect. */
export interface PinnedFetch extends FetchLike {
  /**
   * The same request on the same pool without the fetch API's own work (Request, Headers and
   * web streams): for the hot path of a proxy (the messages API, docs/adr/0024). Same rules:
   * addresses checked at dial time, redirects refused (or returned).
   */
  request(url: string, init: LeanRequestInit): Promise<LeanResponse>;
  /** Destroys the connection pool; in-flight requests fail. */
  close(): Promise<void>;
}

/**
 * A connection was refused before dialing: the host resolved to an address that is not
 * public, or did not resolve. The message names the host and the rule, not the addresses;
 * `range` says why, for logs.
 */
export class DialRefusedError extends Error {
  override readonly name = 'DialRefusedError';
  readonly code = 'ERR_DIAL_REFUSED';
  constructor(
    readonly rule: ResolveRule,
    message: string,
    readonly range?: BlockedRange,
  ) {
    super(message);
  }
}

/** The upstream answered with a redirect; it is never followed (its target was not checked). */
export class RedirectRefusedError extends Error {
  override readonly name = 'RedirectRefusedError';
  readonly code = 'ERR_REDIRECT_REFUSED';
  constructor(readonly status: number) {
    super(`upstream answered HTTP ${status}; redirects are not followed`);
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function withoutBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * A fetch for calling upstream MCP servers whose SSRF check happens when a connection is
 * dialed, not when the URL is stored: every new connection resolves its host again and is
 * refused unless every address is public, so a DNS answer that changes (rebinding) cannot
 * reach an internal address. Literal IPs are checked the same way. Only the addresses that
 * passed the check are dialed.
 *
 * Redirects are never followed: a 301/302/303/307/308 answer rejects with
 * `RedirectRefusedError`, so a redirect to an internal address is never dialed.
 */
export function createPinnedFetch(opts: PinnedFetchOptions): PinnedFetch {
  const resolveOptions = { allowLoopback: opts.allowLoopback, lookup: opts.lookup };

  // Used by net/tls.connect for a host name; the addresses it answers are the ones dialed.
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolvePublicAddresses(hostname, resolveOptions).then(
      (result) => {
        if (!result.ok) {
          callback(new DialRefusedError(result.rule, result.message, result.range), '');
          return;
        }
        const family: unknown = options.family;
        const wanted =
          family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
        const entries = result.addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => wanted === 0 || entry.family === wanted);
        const first = entries[0];
        if (first === undefined) {
          const message = `address host ${hostname} has no IPv${wanted} address`;
          callback(new DialRefusedError('host_unresolvable', message), '');
        } else if (options.all === true) {
          callback(null, entries);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), '');
      },
    );
  };

  const dial = buildConnector({
    lookup,
    ...(opts.connectTimeoutMs === undefined ? {} : { timeout: opts.connectTimeoutMs }),
  });

  // net.connect skips `lookup` for a literal IP, so check those here before dialing.
  const connect: buildConnector.connector = (options, callback) => {
    const host = withoutBrackets(options.hostname);
    if (isIP(host) === 0) {
      dial(options, callback);
      return;
    }
    resolvePublicAddresses(host, resolveOptions).then(
      (result) => {
        if (result.ok) dial(options, callback);
        else callback(new DialRefusedError(result.rule, result.message, result.range), null);
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), null);
      },
    );
  };

  // No body or headers timeout of undici's own: an MCP event stream may stay quiet for long,
  // and a tool call may take long before its answer; callers bound them themselves (the
  // handshake's budget; the gateway's headers and idle timeouts, docs/adr/0010) and the
  // gateway aborts when its client leaves.
  const agent = new Agent({ connect, bodyTimeout: 0, headersTimeout: 0 });

  return noRedirectFetch(agent, opts.redirects ?? 'refuse');
}

/**
 * The fetch for managed workloads (cluster-internal addresses, not SSRF-checked): like the
 * pinned fetch it never follows a redirect (a workload must not steer the platform to another
 * internal address) and sets no body or headers timeout of its own.
 */
export function createWorkloadFetch(opts: { connectTimeoutMs?: number } = {}): PinnedFetch {
  return noRedirectFetch(
    new Agent({
      bodyTimeout: 0,
      headersTimeout: 0,
      ...(opts.connectTimeoutMs === undefined
        ? {}
        : { connect: { timeout: opts.connectTimeoutMs } }),
    }),
  );
}

/** A fetch through `agent` that never follows a redirect: a 3xx rejects (or is returned). */
function noRedirectFetch(agent: Agent, redirects: 'refuse' | 'return' = 'refuse'): PinnedFetch {
  const fetchNoRedirect = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await undiciFetch(url, {
      // The global RequestInit and undici's differ only in their types (FormData's).
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'manual',
      dispatcher: agent,
    });
    if (redirects === 'refuse' && REDIRECT_STATUSES.has(response.status)) {
      await response.body?.cancel().catch(() => undefined);
      throw new RedirectRefusedError(response.status);
    }
    return response;
  };
  const request = async (url: string, init: LeanRequestInit): Promise<LeanResponse> => {
    const answer = await undiciRequest(url, {
      method: init.method as 'POST',
      headers: init.headers,
      body: init.body,
      signal: init.signal,
      dispatcher: agent,
    });
    if (redirects === 'refuse' && REDIRECT_STATUSES.has(answer.statusCode)) {
      await answer.body.dump().catch(() => undefined);
      throw new RedirectRefusedError(answer.statusCode);
    }
    return {
      status: answer.statusCode,
      header: (name) => {
        const v = answer.headers[name.toLowerCase()];
        return Array.isArray(v) ? v[0] : v;
      },
      body: answer.body,
    };
  };
  return Object.assign(fetchNoRedirect, {
    request,
    close: async (): Promise<void> => {
      await agent.destroy();
    },
  });
}
