import { isAbsolute, join } from 'node:path';
import { readInt } from '@aiplane/lib/service';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from './chunker.js';
import { DEFAULT_EMBEDDING_BATCH } from './local-embedder.js';

/** The knowledge engines' settings (docs/adr/0031, docs/configuration.md). */
export interface KnowledgeEngineConfig {
  /** The local embedding model's directory: `model.onnx` and `tokenizer.json`. */
  readonly localModelDir: string;
  /** Texts per call of the local model. */
  readonly embeddingBatchSize: number;
  /** ONNX Runtime's threads for the local model; 0: one per core. */
  readonly embeddingThreads: number;
  /** The largest file extracted, in bytes. */
  readonly maxFileBytes: number;
  /** The most chunks one file may make. */
  readonly maxChunksPerFile: number;
  /** Characters per chunk, and repeated from the previous chunk. */
  readonly chunkSize: number;
  readonly chunkOverlap: number;
}

export const DEFAULT_MAX_FILE_BYTES = 50 * 2 ** 20;
export const DEFAULT_MAX_CHUNKS_PER_FILE = 5000;

/**
 * AIPLANE_KNOWLEDGE_* and AIPLANE_EMBEDDING_* for api/src/config.ts (the one loader); problems
 * are appended to `problems`.
 */
export function readKnowledgeEngineConfig(
  env: NodeJS.ProcessEnv,
  modelStoreDir: string,
  problems: string[],
): KnowledgeEngineConfig {
  const localModelDir = env.AIPLANE_EMBEDDING_MODEL_DIR || join(modelStoreDir, 'all-minilm-l6-v2');
  if (!isAbsolute(localModelDir)) {
    problems.push('AIPLANE_EMBEDDING_MODEL_DIR must be an absolute path');
  }
  const chunkSize = readInt(
    env,
    'AIPLANE_KNOWLEDGE_CHUNK_SIZE',
    DEFAULT_CHUNK_SIZE,
    { min: 100, max: 8000 },
    problems,
  );
  const chunkOverlap = readInt(
    env,
    'AIPLANE_KNOWLEDGE_CHUNK_OVERLAP',
    DEFAULT_CHUNK_OVERLAP,
    { min: 0, max: 4000 },
    problems,
  );
  if (chunkOverlap * 2 >= chunkSize) {
    problems.push(
      `AIPLANE_KNOWLEDGE_CHUNK_OVERLAP must be less than half of AIPLANE_KNOWLEDGE_CHUNK_SIZE (${chunkSize}), got ${chunkOverlap}`,
    );
  }
  return Object.freeze({
    localModelDir,
    embeddingBatchSize: readInt(
      env,
      'AIPLANE_EMBEDDING_BATCH_SIZE',
      DEFAULT_EMBEDDING_BATCH,
      { min: 1, max: 256 },
      problems,
    ),
    embeddingThreads: readInt(env, 'AIPLANE_EMBEDDING_THREADS', 0, { min: 0, max: 64 }, problems),
    maxFileBytes: readInt(
      env,
      'AIPLANE_KNOWLEDGE_MAX_FILE_BYTES',
      DEFAULT_MAX_FILE_BYTES,
      { min: 1024, max: 2 ** 30 },
      problems,
    ),
    maxChunksPerFile: readInt(
      env,
      'AIPLANE_KNOWLEDGE_MAX_CHUNKS_PER_FILE',
      DEFAULT_MAX_CHUNKS_PER_FILE,
      { min: 1, max: 100_000 },
      problems,
    ),
    chunkSize,
    chunkOverlap,
  });
}
