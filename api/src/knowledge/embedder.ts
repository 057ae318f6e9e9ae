/**
 * Turns texts into vectors for collection search (docs/adr/0031). Two implementations: the
 * local ONNX model (LocalEmbedder, the default) and any OpenAI-compatible `/v1/embeddings`
 * backend of the model catalogue (OpenAiEmbedder). Both answer one vector per text, in the
 * texts' order, each `dimensions` long.
 */
export interface Embedder {
  /** The model's name as a collection records it (a change of model means a reindex). */
  readonly model: string;
  /** The length of every vector. */
  readonly dimensions: number;
  /** One vector per text, in order. An empty list answers an empty list without work. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Cosine similarity of two vectors of the same length (the dot product when both are unit). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`vectors of ${a.length} and ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
