import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import type * as Ort from 'onnxruntime-node';

/**
 * A sentence-transformers model exported to ONNX (all-MiniLM-L6-v2 first): BERT WordPiece
 * tokens, the encoder's `last_hidden_state`, mean pooling over the real tokens and L2
 * normalisation, as sentence-transformers' Pooling(mean) + Normalize modules compute it.
 * Everything here blocks: it runs in the embedding worker (local-embedder-worker.ts), never on
 * the API's event loop. ONNX Runtime's native library is loaded by load(), not on import.
 */

/** The model's `max_seq_length` in sentence-transformers: longer texts are truncated. */
export const MINILM_MAX_TOKENS = 256;

/** What is used of @huggingface/tokenizers (its declarations do not resolve under NodeNext). */
interface WordPieceTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
}
const Tokenizer = HfTokenizer as unknown as new (
  json: object,
  config: object,
) => WordPieceTokenizer;

export interface EncoderOptions {
  /** Holds `model.onnx` and `tokenizer.json` (hack/lib/install-models.sh extracts them). */
  modelDir: string;
  /** Tokens per text, [CLS] and [SEP] included (default {@link MINILM_MAX_TOKENS}). */
  maxTokens?: number;
  /** ONNX Runtime's intra-op threads; 0 lets it choose (one per core). */
  threads?: number;
}

export class MiniLmEncoder {
  private constructor(
    private readonly ort: typeof Ort,
    private readonly tokenizer: WordPieceTokenizer,
    private readonly session: Ort.InferenceSession,
    private readonly cls: number,
    private readonly sep: number,
    readonly maxTokens: number,
    readonly dimensions: number,
  ) {}

  static async load(opts: EncoderOptions): Promise<MiniLmEncoder> {
    const json = JSON.parse(await readFile(join(opts.modelDir, 'tokenizer.json'), 'utf8')) as {
      model?: { type?: string };
    };
    if (json.model?.type !== 'WordPiece') {
      throw new Error(`${opts.modelDir}/tokenizer.json is not a BERT WordPiece tokenizer`);
    }
    const tokenizer = new Tokenizer(json, {});
    const cls = tokenizer.token_to_id('[CLS]');
    const sep = tokenizer.token_to_id('[SEP]');
    if (cls === undefined || sep === undefined) {
      throw new Error(`${opts.modelDir}/tokenizer.json has no [CLS] or [SEP] token`);
    }
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(join(opts.modelDir, 'model.onnx'), {
      intraOpNumThreads: opts.threads ?? 0,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    for (const name of ['input_ids', 'attention_mask', 'token_type_ids']) {
      if (!session.inputNames.includes(name)) {
        throw new Error(`${opts.modelDir}/model.onnx has no input ${name}`);
      }
    }
    const out = session.outputMetadata.find((m) => m.name === 'last_hidden_state');
    const dim = out?.isTensor ? out.shape.at(-1) : undefined;
    if (typeof dim !== 'number') {
      throw new Error(`${opts.modelDir}/model.onnx has no last_hidden_state of a fixed width`);
    }
    const maxTokens = opts.maxTokens ?? MINILM_MAX_TOKENS;
    return new MiniLmEncoder(ort, tokenizer, session, cls, sep, maxTokens, dim);
  }

  /** Token ids of one text: [CLS], at most maxTokens − 2 word pieces, [SEP]. */
  tokenize(text: string): number[] {
    const ids = this.tokenizer.encode(text, { add_special_tokens: false }).ids;
    return [this.cls, ...ids.slice(0, this.maxTokens - 2), this.sep];
  }

  /** Word pieces of a text, without [CLS]/[SEP] and without truncation. */
  countTokens(text: string): number {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  }

  /**
   * One unit vector per text, in order; the texts run as one batch padded to the longest (the
   * caller keeps batches small: padding and attention grow with the longest text).
   */
  async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const sequences = texts.map((t) => this.tokenize(t));
    const { ids, mask, types, length } = padBatch(sequences);
    const shape = [sequences.length, length];
    const { Tensor } = this.ort;
    const result = await this.session.run({
      input_ids: new Tensor('int64', ids, shape),
      attention_mask: new Tensor('int64', mask, shape),
      token_type_ids: new Tensor('int64', types, shape),
    });
    const hidden = result.last_hidden_state;
    if (!hidden || !(hidden.data instanceof Float32Array)) {
      throw new Error('the model answered no float32 last_hidden_state');
    }
    return meanPoolNormalize(hidden.data, mask, sequences.length, length, this.dimensions);
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/** Right-padded int64 inputs of a batch: ids (pad 0), attention mask, token types (all 0). */
export function padBatch(sequences: readonly number[][]): {
  ids: BigInt64Array;
  mask: BigInt64Array;
  types: BigInt64Array;
  length: number;
} {
  const length = Math.max(...sequences.map((s) => s.length));
  const ids = new BigInt64Array(sequences.length * length);
  const mask = new BigInt64Array(sequences.length * length);
  sequences.forEach((seq, row) => {
    seq.forEach((id, col) => {
      ids[row * length + col] = BigInt(id);
      mask[row * length + col] = 1n;
    });
  });
  return { ids, mask, types: new BigInt64Array(sequences.length * length), length };
}

/**
 * Mean of each row's hidden states over its unmasked tokens, scaled to unit length
 * (sentence-transformers: Pooling(mean) then Normalize). `hidden` is [batch, length, dim].
 */
export function meanPoolNormalize(
  hidden: Float32Array,
  mask: BigInt64Array,
  batch: number,
  length: number,
  dim: number,
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let row = 0; row < batch; row += 1) {
    const sum = new Float64Array(dim);
    let count = 0;
    for (let t = 0; t < length; t += 1) {
      if (mask[row * length + t] === 0n) continue;
      count += 1;
      const base = (row * length + t) * dim;
      for (let d = 0; d < dim; d += 1) sum[d] = (sum[d] as number) + (hidden[base + d] as number);
    }
    let norm = 0;
    for (let d = 0; d < dim; d += 1) {
      const mean = (sum[d] as number) / Math.max(count, 1e-9);
      sum[d] = mean;
      norm += mean * mean;
    }
    norm = Math.max(Math.sqrt(norm), 1e-12);
    const vec = new Float32Array(dim);
    for (let d = 0; d < dim; d += 1) vec[d] = (sum[d] as number) / norm;
    out.push(vec);
  }
  return out;
}
