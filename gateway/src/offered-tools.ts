import type { Logger } from '@aiplane/lib';
import { listUpstreamTools, type FetchLike } from '@aiplane/lib/mcp';

interface Entry {
  names: Promise<ReadonlySet<string> | undefined>;
  at: number;
}

/**
 * Which tools an upstream offers to a user, listed with that user's credential and kept for a
 * short while. The gateway needs it to answer a call of a tool that does not exist exactly like
 * a call of a tool the allowlist leaves out. Undefined when the listing failed: the call then
 * goes to the upstream, which answers for itself.
 */
export class OfferedTools {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly opts: { ttlMs: number; timeoutMs: number; logger: Logger; max?: number },
  ) {}

  names(
    key: { serverId: string; userId: string },
    upstream: { url: string; bearer: string; fetch: FetchLike },
  ): Promise<ReadonlySet<string> | undefined> {
    const id = `${key.serverId}\0${key.userId}`;
    const now = Date.now();
    const hit = this.cache.get(id);
    if (hit && now - hit.at < this.opts.ttlMs) return hit.names;
    const names = listUpstreamTools({
      url: upstream.url,
      credential: upstream.bearer,
      fetch: upstream.fetch,
      timeoutMs: this.opts.timeoutMs,
    }).then(
      (tools) => new Set(tools.map((t) => t.name)),
      (err: unknown) => {
        this.opts.logger.debug({ server: key.serverId, err }, 'listing offered tools failed');
        this.cache.delete(id);
        return undefined;
      },
    );
    if (this.cache.size >= (this.opts.max ?? 10_000)) this.cache.clear();
    this.cache.set(id, { names, at: now });
    return names;
  }
}
