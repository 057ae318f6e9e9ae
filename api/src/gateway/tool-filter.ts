/**
 * Filtering `tools/list` results by a server's allowlist (spec: Tools not on a non-empty
 * `tool_allowlist` are not callable, and not listed). Works on a whole JSON body and, as a
 * stream transform, on `text/event-stream` responses event by event.
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

/** A whole JSON body (one message or a batch). */
export function filterJsonBody(text: string, allowed: (tool: string) => boolean): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const out = Array.isArray(body)
    ? body.map((m) => filterMessage(m, allowed))
    : filterMessage(body, allowed);
  return JSON.stringify(out);
}

/**
 * An SSE transform: events are split on blank lines; an event whose `data` is a tools/list
 * result is rewritten, every other byte passes as it came, without waiting
 * for the stream to end.
 */
export function sseToolFilter(
  allowed: (tool: string) => boolean,
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  const rewrite = (event: string): string => {
    const lines = event.split(/\r?\n/);
    const data = lines
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''));
    if (data.length === 0) return event;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      return event;
    }
    const filtered = filterMessage(parsed, allowed);
    if (filtered === parsed) return event;
    const rest = lines.filter((l) => !l.startsWith('data:'));
    return [...rest, `data: ${JSON.stringify(filtered)}`].join('\n');
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: RegExpExecArray | null;
      const boundary = /\r?\n\r?\n/;
      while ((end = boundary.exec(buffer)) !== null) {
        const event = buffer.slice(0, end.index);
        const separator = end[0];
        buffer = buffer.slice(end.index + separator.length);
        controller.enqueue(encoder.encode(rewrite(event) + separator));
      }
    },
    flush(controller) {
      buffer += decoder.decode();
      if (buffer) controller.enqueue(encoder.encode(rewrite(buffer)));
    },
  });
}
