import { answerOf, ApiError, authHeaders } from './api';

export interface StreamEvent {
  event: string;
  data: string;
}

/** Splits server-sent events out of a buffer: the complete events, and what is left over. */
export function parseEvents(buffer: string): { events: StreamEvent[]; rest: string } {
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const events: StreamEvent[] = [];
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue; // a keep-alive comment
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}

/**
 * Follows a `text/event-stream` of the API with the user's token (EventSource cannot send
 * one): each event to `onEvent` until the stream ends or `signal` aborts. A refusal before the
 * stream starts is thrown as the API's error.
 */
export async function followEvents(
  path: string,
  onEvent: (e: StreamEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  let res: Response;
  try {
    res = await fetch(path, {
      headers: { ...(await authHeaders()), accept: 'text/event-stream' },
      signal,
    });
  } catch (err) {
    if (signal.aborted) return;
    throw err instanceof ApiError ? err : new ApiError(0, 'The API could not be reached.');
  }
  if (!res.ok || !res.body) {
    await answerOf(res);
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const { events, rest } = parseEvents(buffer + value);
      buffer = rest;
      events.forEach(onEvent);
    }
  } catch (err) {
    if (!signal.aborted) throw new ApiError(0, (err as Error).message);
  }
}
