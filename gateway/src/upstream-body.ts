import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { filterMessages, mayListTools } from './tool-filter.js';

/** Why the gateway cut an upstream answer short. */
export type StreamFailure = 'idle' | 'too_large';

/** What ended one upstream answer early, if anything: shared by the stages of that answer. */
export interface StreamOutcome {
  failure?: StreamFailure;
}

export interface IdleGuardOptions {
  /** The longest silence between two chunks of the upstream body. */
  idleTimeoutMs: number;
  /** Aborted when the request ends for any reason (client gone, gateway gave up): stops the timer. */
  signal: AbortSignal;
  outcome: StreamOutcome;
  /**
   * `end`: close the stream cleanly, so the next stage can still end an event stream with an
   * error event; `error`: fail it (a JSON body cannot be ended meaningfully).
   */
  onIdle: 'end' | 'error';
  /** Gives up on the upstream (aborts its request, so its connection closes). */
  giveUp: () => void;
}

/** The error a body fails with when the upstream stayed silent too long. */
export class UpstreamIdleError extends Error {
  override readonly name = 'UpstreamIdleError';
}

/**
 * Passes an upstream body through unchanged, and ends it when the upstream sends nothing for
 * `idleTimeoutMs` (docs/adr/0010, "Timeouts and caps").
 */
export function idleGuard(o: IdleGuardOptions): TransformStream<Uint8Array, Uint8Array> {
  let timer: NodeJS.Timeout | undefined;
  const stop = () => clearTimeout(timer);
  o.signal.addEventListener('abort', stop, { once: true });
  let arm: () => void = stop;
  return new TransformStream({
    start(controller) {
      arm = () => {
        stop();
        timer = setTimeout(() => {
          o.outcome.failure ??= 'idle';
          if (o.onIdle === 'end') controller.terminate();
          else controller.error(new UpstreamIdleError('the upstream stayed silent'));
          o.giveUp();
        }, o.idleTimeoutMs);
      };
      arm();
    },
    transform(chunk, controller) {
      arm();
      controller.enqueue(chunk);
    },
    flush() {
      stop();
    },
  });
}

/**
 * A whole body, at most `maxBytes` of it: undefined (and the body cancelled) beyond, so an
 * upstream cannot make the gateway hold more than that.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
}

export interface SseRewriterOptions {
  /** When given, tools/list results (single or batched) keep only the tools it permits. */
  allowed?: (tool: string) => boolean;
  /** The most one pending (incomplete) event may hold, in characters. */
  maxBufferedChars: number;
  outcome: StreamOutcome;
  giveUp: () => void;
  /** The event that ends a stream the gateway cut short (a JSON-RPC error), or none. */
  failureEvent: (failure: StreamFailure) => string | undefined;
}

/** One event as the gateway writes it: LF line endings, `event`, `id`, one `data` per line. */
export function serializeEvent(e: EventSourceMessage): string {
  let out = '';
  if (e.event !== undefined) out += `event: ${e.event}\n`;
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  for (const line of e.data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

/**
 * Re-writes an upstream event stream as the gateway parsed it (eventsource-parser: CR, LF
 * and CRLF line endings, as the SSE standard allows), event by event without waiting for the
 * stream to end. What the client receives is the gateway's own serialisation of what it
 * checked, so no parser difference between gateway and client can hide a tools listing from
 * the allowlist. An incomplete event beyond `maxBufferedChars` ends the stream (with
 * `failureEvent`), as does an incomplete last event at the end (SSE: it is discarded).
 */
export function sseRewriter(o: SseRewriterOptions): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let out: string[] = [];
  const rewrite = (e: EventSourceMessage): EventSourceMessage => {
    if (o.allowed === undefined || !mayListTools(e.data)) return e;
    let parsed: unknown;
    try {
      parsed = JSON.parse(e.data);
    } catch {
      return e;
    }
    const filtered = filterMessages(parsed, o.allowed);
    return filtered === parsed ? e : { ...e, data: JSON.stringify(filtered) };
  };
  const parser = createParser({
    maxBufferSize: o.maxBufferedChars,
    onEvent: (e) => out.push(serializeEvent(rewrite(e))),
    onRetry: (ms) => out.push(`retry: ${ms}\n\n`),
    // Keep-alive comments keep intermediaries from closing a quiet stream.
    onComment: (comment) => out.push(`: ${comment}\n\n`),
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') o.outcome.failure ??= 'too_large';
    },
  });
  const emit = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (out.length > 0) controller.enqueue(encoder.encode(out.join('')));
    out = [];
  };
  const endWith = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const failure = o.outcome.failure;
    const last = failure === undefined ? undefined : o.failureEvent(failure);
    if (last !== undefined) controller.enqueue(encoder.encode(last));
  };
  // A CR ending a chunk ends a line whether or not an LF follows in the next chunk: feed it as
  // CRLF at once (the parser would wait for the next chunk) and drop a leading LF next time.
  let skipLf = false;
  const feed = (text: string) => {
    if (text === '') return;
    let t = skipLf && text.startsWith('\n') ? text.slice(1) : text;
    skipLf = t.endsWith('\r');
    if (skipLf) t += '\n';
    parser.feed(t);
  };
  return new TransformStream({
    transform(chunk, controller) {
      feed(decoder.decode(chunk, { stream: true }));
      emit(controller);
      if (o.outcome.failure !== undefined) {
        endWith(controller);
        controller.terminate();
        o.giveUp();
      }
    },
    flush(controller) {
      // An earlier stage cut the stream: what is pending is a truncated event, dropped.
      if (o.outcome.failure !== undefined) {
        endWith(controller);
        return;
      }
      feed(decoder.decode());
      emit(controller);
    },
  });
}
