import { Worker } from 'node:worker_threads';
import type { Embedder } from './embedder.js';
import type { EncoderOptions } from './minilm-encoder.js';

/** The local model's id in collections and in the `/v1/embeddings` shape. */
export const LOCAL_EMBEDDING_MODEL = 'all-MiniLM-L6-v2';
/** Texts per model call (padding and attention grow with the longest text of a batch). */
export const DEFAULT_EMBEDDING_BATCH = 8;

export interface LocalEmbedderOptions extends EncoderOptions {
  /** Texts per model call (default {@link DEFAULT_EMBEDDING_BATCH}). */
  batchSize?: number;
}

/** Messages to and from local-embedder-worker.ts. */
export type WorkerRequest = { type: 'embed'; id: number; texts: string[] } | { type: 'close' };
export type WorkerReply =
  | { type: 'ready'; dimensions: number; maxTokens: number }
  | { type: 'failed'; message: string }
  | { type: 'vectors'; id: number; flat: Float32Array }
  | { type: 'error'; id: number; message: string };

/** The local model could not be loaded, or stopped, or failed on a batch. */
export class LocalEmbedderError extends Error {
  override readonly name = 'LocalEmbedderError';
}

/** One embed() call: its batches still to send, and where their vectors go. */
interface Pending {
  batches: { start: number; texts: string[] }[];
  out: Float32Array[];
  left: number;
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
  done: boolean;
}

/**
 * The worker's entry: local-embedder-worker.js in a build; from the sources (run by tsx) a
 * small module that registers tsx in the worker first (Node 20 does not carry the parent's
 * `--import tsx` hooks into worker threads).
 */
function newWorker(workerData: EncoderOptions): Worker {
  const entry = import.meta.url.endsWith('.ts')
    ? './local-embedder-worker-tsx.js'
    : './local-embedder-worker.js';
  return new Worker(new URL(entry, import.meta.url), { workerData });
}

/**
 * all-MiniLM-L6-v2 in ONNX Runtime, in a worker thread of its own (the binding's run blocks the
 * thread it is called on). Calls are cut into batches of `batchSize` texts, and one batch is in
 * the worker at a time, taken from the pending calls in turn: a search query waits for at most
 * the one batch of an ingestion that is running, not for the whole file. Vectors are mean-pooled and unit length,
 * as sentence-transformers gives them; texts past 256 tokens are truncated (docs/adr/0031).
 * A worker that dies fails what it was doing; the next call starts a new one.
 */
export class LocalEmbedder implements Embedder {
  readonly model = LOCAL_EMBEDDING_MODEL;
  private worker: Worker | undefined;
  private readonly queue: Pending[] = [];
  private inFlight: { id: number; call: Pending; start: number } | undefined;
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly opts: LocalEmbedderOptions,
    readonly dimensions: number,
    readonly maxTokens: number,
    worker: Worker,
  ) {
    this.attach(worker);
  }

  /** Loads the model in a new worker thread; rejects when it cannot be loaded. */
  static async start(opts: LocalEmbedderOptions): Promise<LocalEmbedder> {
    const { worker, dimensions, maxTokens } = await spawn(opts);
    return new LocalEmbedder(opts, dimensions, maxTokens, worker);
  }

  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new LocalEmbedderError('the embedder is closed'));
    if (texts.length === 0) return Promise.resolve([]);
    const size = this.opts.batchSize ?? DEFAULT_EMBEDDING_BATCH;
    return new Promise<Float32Array[]>((resolve, reject) => {
      const call: Pending = {
        batches: [],
        out: new Array<Float32Array>(texts.length),
        left: texts.length,
        resolve,
        reject,
        done: false,
      };
      for (let start = 0; start < texts.length; start += size) {
        call.batches.push({ start, texts: texts.slice(start, start + size) });
      }
      if (signal) {
        if (signal.aborted) {
          reject(abortReason(signal));
          return;
        }
        signal.addEventListener('abort', () => this.finish(call, abortReason(signal)), {
          once: true,
        });
      }
      this.queue.push(call);
      this.pump();
    });
  }

  /** Stops the worker; pending calls fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const failure = new LocalEmbedderError('the embedder is closed');
    for (const call of [...this.queue]) this.finish(call, failure);
    if (this.inFlight) this.finish(this.inFlight.call, failure);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage({ type: 'close' } satisfies WorkerRequest);
      await exited;
    }
  }

  private attach(worker: Worker): void {
    this.worker = worker;
    worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    worker.on('error', (err) => this.onExit(worker, err.message));
    worker.on('exit', (code) => this.onExit(worker, `exited with code ${code}`));
  }

  /**
   * Sends the next batch when none is in the worker: the first batch of the queue's head. A
   * call with batches left goes back to the queue's end when its batch is answered, so calls
   * made meanwhile come before its next batch.
   */
  private pump(): void {
    if (this.inFlight || this.closed) return;
    const call = this.queue[0];
    if (!call) return;
    if (!this.worker) {
      // The last worker died: start another, then go on.
      this.inFlight = { id: 0, call, start: -1 };
      spawn(this.opts).then(
        ({ worker }) => {
          this.inFlight = undefined;
          if (this.closed) void worker.terminate();
          else this.attach(worker);
          this.pump();
        },
        (err: Error) => {
          this.inFlight = undefined;
          for (const c of [...this.queue]) this.finish(c, err);
        },
      );
      return;
    }
    this.queue.shift();
    const batch = call.batches.shift() as { start: number; texts: string[] };
    const id = this.nextId++;
    this.inFlight = { id, call, start: batch.start };
    this.worker.postMessage({ type: 'embed', id, texts: batch.texts } satisfies WorkerRequest);
  }

  private onReply(reply: WorkerReply): void {
    const current = this.inFlight;
    if (!current || !('id' in reply) || reply.id !== current.id) return;
    this.inFlight = undefined;
    const { call, start } = current;
    if (reply.type === 'error') {
      this.finish(
        call,
        new LocalEmbedderError(`the local embedding model failed: ${reply.message}`),
      );
    } else if (reply.type === 'vectors' && !call.done) {
      const n = reply.flat.length / this.dimensions;
      for (let i = 0; i < n; i += 1) {
        call.out[start + i] = reply.flat.subarray(i * this.dimensions, (i + 1) * this.dimensions);
      }
      call.left -= n;
      if (call.left === 0) {
        call.done = true;
        call.resolve(call.out);
      } else if (call.batches.length > 0) {
        this.queue.push(call);
      }
    }
    this.pump();
  }

  private onExit(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const current = this.inFlight;
    this.inFlight = undefined;
    if (current && !this.closed) {
      this.finish(current.call, new LocalEmbedderError(`the embedding worker ${why}`));
    }
    this.pump();
  }

  /** Settles a call with an error and drops what it still had to send. */
  private finish(call: Pending, err: Error): void {
    if (call.done) return;
    call.done = true;
    call.batches.length = 0;
    const i = this.queue.indexOf(call);
    if (i >= 0) this.queue.splice(i, 1);
    call.reject(err);
  }
}

function spawn(
  opts: LocalEmbedderOptions,
): Promise<{ worker: Worker; dimensions: number; maxTokens: number }> {
  const data: EncoderOptions = {
    modelDir: opts.modelDir,
    ...(opts.maxTokens === undefined ? {} : { maxTokens: opts.maxTokens }),
    ...(opts.threads === undefined ? {} : { threads: opts.threads }),
  };
  const worker = newWorker(data);
  return new Promise((resolve, reject) => {
    const onExit = (code: number) =>
      reject(new LocalEmbedderError(`the embedding worker exited with code ${code} while loading`));
    const onError = (err: Error) =>
      reject(new LocalEmbedderError(`the embedding worker failed to start: ${err.message}`));
    worker.once('exit', onExit);
    worker.once('error', onError);
    worker.once('message', (reply: WorkerReply) => {
      worker.off('exit', onExit);
      worker.off('error', onError);
      if (reply.type === 'ready') {
        resolve({ worker, dimensions: reply.dimensions, maxTokens: reply.maxTokens });
      } else {
        void worker.terminate();
        reject(
          new LocalEmbedderError(
            `the local embedding model could not be loaded: ${reply.type === 'failed' ? reply.message : reply.type}`,
          ),
        );
      }
    });
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
