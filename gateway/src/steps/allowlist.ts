import { isAllowed } from '@aiplane/lib/mcp';
import { batchNotProcessed, unknownTool, type JsonRpcMessage } from '../json-rpc.js';
import type { OfferedTools } from '../offered-tools.js';
import type { McpCall } from './call.js';

/** The `params.name` of a tools/call, as sent. */
function toolNameValue(m: JsonRpcMessage): unknown {
  const params = m.params;
  return typeof params === 'object' && params !== null
    ? (params as { name?: unknown }).name
    : undefined;
}

/**
 * Step 5, the allowlist: the tool calls answered here, each with the name to answer with. A
 * call of a tool that is not both allowed and offered is refused (without an allowlist,
 * whether it is offered is the upstream's to answer: docs/adr/0010), as is a call whose tool
 * name is not a string.
 */
export async function refusedCalls(
  call: McpCall,
  allowlist: readonly string[],
  offered: () => ReturnType<OfferedTools['names']>,
): Promise<Map<JsonRpcMessage, string>> {
  const refused = new Map<JsonRpcMessage, string>();
  for (const m of (call.messages ?? []).filter((x) => x.method === 'tools/call')) {
    const value = toolNameValue(m);
    const name = typeof value === 'string' ? value : undefined;
    let refuse = name === undefined || !isAllowed(allowlist, name);
    if (!refuse && name !== undefined && allowlist.length > 0) {
      const names = await offered();
      refuse = names !== undefined && !names.has(name);
    }
    if (refuse) refused.set(m, name ?? JSON.stringify(value) ?? 'undefined');
  }
  return refused;
}

/**
 * The answer to a request with refused calls (HTTP 200): one message, the unknown-tool error;
 * a batch is not forwarded at all, and every request in it is answered, the refused calls
 * exactly as a single unknown tool would be.
 */
export function refusalAnswer(call: McpCall, refused: Map<JsonRpcMessage, string>): string {
  const [single] = refused;
  if (single && !Array.isArray(call.parsed)) {
    const [m, name] = single;
    return unknownTool(m.id ?? null, name);
  }
  return `[${(call.messages ?? [])
    .filter((m) => m.id !== undefined && m.method !== undefined)
    .map((m) => {
      const name = refused.get(m);
      return name !== undefined ? unknownTool(m.id ?? null, name) : batchNotProcessed(m.id ?? null);
    })
    .join(',')}]`;
}
