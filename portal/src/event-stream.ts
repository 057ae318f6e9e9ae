import { ApiError, callerHeaders, responseOf } from './api';
import { parseEvents, type StreamEvent } from './sse';

export type { StreamEvent };

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
      headers: { ...(await callerHeaders()), accept: 'text/event-stream' },
      signal,
    });
  } catch (err) {
    if (signal.aborted) return;
    throw err instanceof ApiError ? err : new ApiError(0, 'The API could not be reached.');
  }
  if (!res.ok || !res.body) {
    await responseOf(res);
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
