import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The text of a tool result's content (text parts joined); throws on an error result. */
export function toolText(result: unknown): string {
  const r = result as { isError?: unknown; content?: unknown } | null;
  const content = Array.isArray(r?.content) ? (r.content as unknown[]) : [];
  const text = content
    .filter((c): c is { type: 'text'; text: string } => {
      const part = c as { type?: unknown; text?: unknown } | null;
      return part?.type === 'text' && typeof part.text === 'string';
    })
    .map((c) => c.text)
    .join('');
  if (r?.isError === true) throw new Error(`the tool answered an error: ${text.slice(0, 500)}`);
  return text;
}

export interface GatewaySession {
  /** serverInfo of the upstream, as the gateway passed it through. */
  serverName: string | undefined;
  tools(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/**
 * An MCP session through the gateway with the official SDK client (Streamable HTTP), the
 * caller's platform token as the bearer: what any MCP client of the platform does.
 */
export async function connectThroughGateway(url: string, token: string): Promise<GatewaySession> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'aiplane-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport, { timeout: 30_000 });
  return {
    serverName: client.getServerVersion()?.name,
    async tools() {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return names.sort();
    },
    async call(name, args) {
      return toolText(await client.callTool({ name, arguments: args }));
    },
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}
