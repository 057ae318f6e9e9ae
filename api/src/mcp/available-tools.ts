import type { McpServer } from '@aiplane/crds';
import type { Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import {
  isAllowed,
  upstreamTarget,
  type UpstreamDialers,
  upstreamBearer,
  listUpstreamTools,
  UpstreamError,
} from '@aiplane/lib/mcp';
import type { CredentialStore } from '@aiplane/lib/store';

/**
 * One entry of `GET /v1/mcp/servers/{id}/available-tools` (spec: "not shown"; docs/mcp.md):
 * every tool the upstream lists, whether or not the allowlist permits it, so an administrator
 * can build the allowlist from it.
 */
export interface AvailableTool {
  name: string;
  title: string | null;
  description: string | null;
  /** The tool's JSON Schema for its arguments, as the upstream declares it. */
  input_schema: Record<string, unknown>;
  /** Whether the gateway lets clients see and call it (empty allowlist: every tool). */
  allowed: boolean;
}

/** Lists an upstream's tools with the calling user's own credential. */
export class AvailableTools {
  constructor(
    private readonly opts: UpstreamDialers & {
      credentials: CredentialStore;
      timeoutMs: number;
      logger: Logger;
    },
  ) {}

  async list(server: McpServer, userId: string): Promise<AvailableTool[]> {
    const id = server.metadata.uid ?? '';
    const link = await this.opts.credentials.link(id, userId);
    if (!link.linked) {
      throw new ApiError(
        'mcp_credential_not_linked',
        'link your credential for this server first (PUT /v1/mcp/servers/{id}/credential)',
      );
    }
    const target = upstreamTarget(server, this.opts);
    // A static credential as is; an OAuth one renewed first when it is about to expire.
    const credential = await upstreamBearer({
      credentials: this.opts.credentials,
      serverId: id,
      userId,
      fetch: this.opts.remoteFetch,
      logger: this.opts.logger,
    });
    try {
      const tools = await listUpstreamTools({
        url: target.url,
        credential,
        fetch: target.fetch,
        timeoutMs: this.opts.timeoutMs,
      });
      return tools.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        input_schema: t.inputSchema,
        allowed: isAllowed(server.spec.toolAllowlist, t.name),
      }));
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      this.opts.logger.info(
        { server: id, reason: err.reason, cause: err.message },
        'upstream MCP server refused a tool listing',
      );
      if (err.reason === 'credential_rejected') {
        throw new ApiError(
          'mcp_credential_rejected',
          'the MCP server refused your linked credential; link a new one',
        );
      }
      throw new ApiError(
        'mcp_server_unreachable',
        'the MCP server did not answer or did not complete an MCP handshake',
      );
    }
  }
}
