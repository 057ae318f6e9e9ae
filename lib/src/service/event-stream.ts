import type { Response } from 'express';

/** How often a quiet event stream sends an SSE comment, so proxies keep it open. */
export const KEEPALIVE_MS = 15_000;

/** An open `text/event-stream` answer. */
export interface EventStream {
  /** Whether the client left. */
  readonly gone: boolean;
  /** Sends one event (`data` as JSON). */
  send(event: string, data: unknown, id?: number | string): void;
  /** Sends a keep-alive comment when nothing was sent for {@link KEEPALIVE_MS}. */
  keepAlive(): void;
  end(): void;
}

/** Answers 200 `text/event-stream`, unbuffered, and hands back what writes to it. */
export function openEventStream(res: Response): EventStream {
  res.status(200).set({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  let gone = false;
  let quietSince = Date.now();
  res.on('close', () => (gone = true));
  return {
    get gone() {
      return gone;
    },
    send(event, data, id) {
      if (gone) return;
      res.write(
        `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
      );
      quietSince = Date.now();
    },
    keepAlive() {
      if (gone || Date.now() - quietSince <= KEEPALIVE_MS) return;
      res.write(': keep-alive\n\n');
      quietSince = Date.now();
    },
    end() {
      if (!gone) res.end();
    },
  };
}
