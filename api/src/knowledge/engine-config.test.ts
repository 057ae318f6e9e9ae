import assert from 'node:assert/strict';
import { readKnowledgeEngineConfig } from './engine-config.js';

const read = (env: Record<string, string>) => {
  const problems: string[] = [];
  const config = readKnowledgeEngineConfig(env, '/var/lib/aiplane/models', problems);
  return { config, problems };
};

describe('readKnowledgeEngineConfig', function () {
  it('answers the documented defaults', function () {
    assert.deepEqual(read({}), {
      config: {
        localModelDir: '/var/lib/aiplane/models/all-minilm-l6-v2',
        embeddingBatchSize: 8,
        embeddingThreads: 0,
        maxFileBytes: 50 * 2 ** 20,
        maxChunksPerFile: 5000,
        chunkSize: 800,
        chunkOverlap: 100,
      },
      problems: [],
    });
  });

  it('reads every variable', function () {
    const { config, problems } = read({
      AIPLANE_EMBEDDING_MODEL_DIR: '/models/minilm',
      AIPLANE_EMBEDDING_BATCH_SIZE: '64',
      AIPLANE_EMBEDDING_THREADS: '2',
      AIPLANE_KNOWLEDGE_MAX_FILE_BYTES: '1048576',
      AIPLANE_KNOWLEDGE_MAX_CHUNKS_PER_FILE: '10',
      AIPLANE_KNOWLEDGE_CHUNK_SIZE: '1000',
      AIPLANE_KNOWLEDGE_CHUNK_OVERLAP: '0',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config, {
      localModelDir: '/models/minilm',
      embeddingBatchSize: 64,
      embeddingThreads: 2,
      maxFileBytes: 1048576,
      maxChunksPerFile: 10,
      chunkSize: 1000,
      chunkOverlap: 0,
    });
  });

  it('names each variable out of its range, and an overlap of half the chunk size', function () {
    const { problems } = read({
      AIPLANE_EMBEDDING_MODEL_DIR: 'relative/dir',
      AIPLANE_EMBEDDING_BATCH_SIZE: '0',
      AIPLANE_KNOWLEDGE_MAX_CHUNKS_PER_FILE: 'many',
      AIPLANE_KNOWLEDGE_CHUNK_SIZE: '400',
      AIPLANE_KNOWLEDGE_CHUNK_OVERLAP: '200',
    });
    assert.deepEqual(problems, [
      'AIPLANE_EMBEDDING_MODEL_DIR must be an absolute path',
      'AIPLANE_KNOWLEDGE_CHUNK_OVERLAP must be less than half of AIPLANE_KNOWLEDGE_CHUNK_SIZE (400), got 200',
      'AIPLANE_EMBEDDING_BATCH_SIZE must be an integer from 1 to 256, got "0"',
      'AIPLANE_KNOWLEDGE_MAX_CHUNKS_PER_FILE must be an integer from 1 to 100000, got "many"',
    ]);
  });
});
