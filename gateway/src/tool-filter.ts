/**
 * Filtering `tools/list` results by a server's allowlist (spec: Tools not on a non-empty
 * `tool_allowlist` are not callable, and not listed): one message, or a batch of them; a
 * whole JSON body here, an event stream event by event in upstream-body.ts (sseRewriter).
 */

interface ToolsListResult {
  tools?: { name?: unknown }[];
}

/** Removes the tools the allowlist leaves out from a JSON-RPC result listing tools. */
export function filterMessage(message: unknown, allowed: (tool: string) => boolean): unknown {
  if (typeof message !== 'object' || message === null) return message;
  const m = message as { id?: unknown; result?: ToolsListResult };
  // Any result carrying a tools list, whatever request id it answers.
  if (!Array.isArray(m.result?.tools)) return message;
  return {
    ...m,
    result: {
      ...m.result,
      tools: m.result.tools.filter((t) => typeof t.name === 'string' && allowed(t.name)),
    },
  };
}

/**
 * One message or a (2025-03-26) batch of them: the same value when nothing was filtered out,
 * else a filtered copy.
 */
export function filterMessages(body: unknown, allowed: (tool: string) => boolean): unknown {
  if (!Array.isArray(body)) return filterMessage(body, allowed);
  const out = body.map((m) => filterMessage(m, allowed));
  return out.every((m, i) => m === body[i]) ? body : out;
}

/**
 * Whether any JSON parser could read a `tools` member in this text: only when it spells
 * `tools` out, or hides letters in `\u` escapes (JSON has no other escape that makes a
 * letter). When it cannot, there is no listing to filter (whatever a parser does with
 * duplicate keys), and the text may pass as it is, unparsed.
 */
export function mayListTools(text: string): boolean {
  return text.includes('tools') || text.includes('\\u');
}

/**
 * A whole body (one message or a batch); undefined when it does not parse. Such a body is not
 * passed on: a client may read what the gateway could not (a byte-order mark, say), and see
 * tools the allowlist hides.
 */
export function filterJsonBody(
  text: string,
  allowed: (tool: string) => boolean,
): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Re-serialised only when it may list tools: then the client reads what was checked.
  return mayListTools(text) ? JSON.stringify(filterMessages(body, allowed)) : text;
}
