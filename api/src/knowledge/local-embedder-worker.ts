// The embedding worker thread: ONNX Runtime's Node binding runs a model synchronously (inside a
// setImmediate), so the model lives here, off the API's event loop (docs/adr/0031).
import { parentPort, workerData } from 'node:worker_threads';
import type { EncoderOptions } from './minilm-encoder.js';
import { MiniLmEncoder } from './minilm-encoder.js';
import type { WorkerReply, WorkerRequest } from './local-embedder.js';

const port = parentPort;
if (!port) throw new Error('local-embedder-worker.ts runs as a worker thread only');

function reply(message: WorkerReply, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

try {
  const encoder = await MiniLmEncoder.load(workerData as EncoderOptions);
  port.on('message', (req: WorkerRequest) => {
    if (req.type === 'close') {
      void encoder.close().finally(() => port.close());
      return;
    }
    encoder.embedBatch(req.texts).then(
      (vectors) => {
        // One buffer for the batch, moved (not copied) to the API's thread.
        const flat = new Float32Array(vectors.length * encoder.dimensions);
        vectors.forEach((v, i) => flat.set(v, i * encoder.dimensions));
        reply({ type: 'vectors', id: req.id, flat }, [flat.buffer]);
      },
      (err: unknown) => reply({ type: 'error', id: req.id, message: (err as Error).message }),
    );
  });
  reply({ type: 'ready', dimensions: encoder.dimensions, maxTokens: encoder.maxTokens });
} catch (err) {
  reply({ type: 'failed', message: (err as Error).message });
}
