// Ingestion throughput of the local embedding model (docs/adr/0031): a Markdown document of
// generated English prose is extracted, chunked at the defaults (800 characters, 100 overlap)
// and embedded with all-MiniLM-L6-v2 in ONNX Runtime's worker thread, at several batch sizes,
// on this machine's cores. Also: how long a one-sentence search query waits when it arrives
// while an ingestion is running (the embedder takes one batch at a time from each caller in
// turn). The model only: no API, no database (`node --import tsx bench/run.ts embeddings`).
import { cpus, loadavg } from 'node:os';
import {
  chunkText,
  extractText,
  LocalEmbedder,
  MiniLmEncoder,
  readKnowledgeEngineConfig,
} from '@aiplane/api';
import { miniLmDir } from '@aiplane/hack';
import { percentile, writeResult } from './report.js';

const BATCH_SIZES = [1, 8, 32];
/** Chunks embedded per batch size (after a warm-up of one batch). */
const CHUNKS = 192;
const QUERIES = 20;

const WORDS = (
  'the a of to and in is that for it as with was on be by this are from at or an which have ' +
  'system data model user service cluster request time network storage policy document team ' +
  'process value result change version report security access memory query index search file ' +
  'organization platform tenant project budget customer contract meeting schedule design test ' +
  'performance latency throughput capacity failure recovery backup release deployment quickly ' +
  'carefully usually often never always however therefore because although while during after ' +
  'important large small new old early late simple complex reliable secure shared private'
).split(' ');

/** Deterministic prose: sentences of 8–24 words, paragraphs of 3–7 sentences, as Markdown. */
function document(paragraphs: number): string {
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const out: string[] = ['# Generated report', ''];
  for (let p = 0; p < paragraphs; p += 1) {
    if (p % 10 === 0) out.push(`## Section ${p / 10 + 1}`, '');
    const sentences: string[] = [];
    for (let s = 3 + next(5); s > 0; s -= 1) {
      const words = Array.from({ length: 8 + next(17) }, () => WORDS[next(WORDS.length)]);
      const text = words.join(' ');
      sentences.push(`${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
    }
    out.push(sentences.join(' '), '');
  }
  return out.join('\n');
}

const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

export async function embeddingsThroughput(): Promise<void> {
  const config = readKnowledgeEngineConfig({}, '/unused', []);
  const markdown = new TextEncoder().encode(document(220));
  let started = performance.now();
  const { text } = await extractText(
    { name: 'report.md', contentType: 'text/markdown', bytes: markdown },
    { maxBytes: config.maxFileBytes },
  );
  const chunks = chunkText(text, {
    size: config.chunkSize,
    overlap: config.chunkOverlap,
    maxChunks: config.maxChunksPerFile,
  }).map((c) => c.text);
  const extractAndChunkMs = performance.now() - started;
  if (chunks.length < CHUNKS) throw new Error(`only ${chunks.length} chunks`);
  const sample = chunks.slice(0, CHUNKS);

  const encoder = await MiniLmEncoder.load({ modelDir: miniLmDir(), threads: 1 });
  const tokens = sample.map((c) => encoder.countTokens(c) + 2);
  await encoder.close();
  const sortedTokens = [...tokens].sort((a, b) => a - b);

  const byBatch: Record<string, { chunksPerSecond: number; msPerChunk: number }> = {};
  for (const batchSize of BATCH_SIZES) {
    const embedder = await LocalEmbedder.start({ modelDir: miniLmDir(), batchSize });
    try {
      await embedder.embed(sample.slice(0, batchSize));
      started = performance.now();
      await embedder.embed(sample);
      const seconds = (performance.now() - started) / 1000;
      byBatch[String(batchSize)] = {
        chunksPerSecond: round(sample.length / seconds),
        msPerChunk: round((seconds * 1000) / sample.length, 2),
      };
      console.log(`batch ${batchSize}: ${JSON.stringify(byBatch[String(batchSize)])}`);
    } finally {
      await embedder.close();
    }
  }

  // A query arriving during an ingestion, at the default batch size; and alone.
  const embedder = await LocalEmbedder.start({
    modelDir: miniLmDir(),
    batchSize: config.embeddingBatchSize,
  });
  const duringIngestion: number[] = [];
  const idle: number[] = [];
  try {
    await embedder.embed(sample.slice(0, 16));
    for (let i = 0; i < QUERIES; i += 1) {
      const t = performance.now();
      await embedder.embed([`search query number ${i} about deployment latency`]);
      idle.push(performance.now() - t);
    }
    let ingesting = true;
    const ingestion = embedder.embed(sample).finally(() => {
      ingesting = false;
    });
    for (let i = 0; i < QUERIES && ingesting; i += 1) {
      const t = performance.now();
      await embedder.embed([`search query number ${i} about deployment latency`]);
      if (ingesting) duringIngestion.push(performance.now() - t);
    }
    await ingestion;
  } finally {
    await embedder.close();
  }
  const summary = (v: number[]) => {
    const sorted = [...v].sort((a, b) => a - b);
    return {
      samples: v.length,
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
    };
  };

  const best = Object.entries(byBatch).sort(
    (a, b) => b[1].chunksPerSecond - a[1].chunksPerSecond,
  )[0];
  writeResult('embeddings', {
    model: 'all-MiniLM-L6-v2 (ONNX, onnxruntime-node 1.30.0, CPU)',
    cores: cpus().length,
    loadAverageAtEnd: loadavg().map((l) => round(l, 2)),
    document: {
      bytes: markdown.length,
      chunks: chunks.length,
      extractAndChunkMs: round(extractAndChunkMs),
      chunkSize: config.chunkSize,
      chunkOverlap: config.chunkOverlap,
    },
    chunkTokens: {
      p50: percentile(sortedTokens, 50),
      max: sortedTokens.at(-1),
    },
    chunksEmbedded: sample.length,
    throughputByBatchSize: byBatch,
    best: { batchSize: Number(best?.[0]), ...best?.[1] },
    defaultBatchSize: config.embeddingBatchSize,
    queryMs: { idle: summary(idle), duringIngestion: summary(duringIngestion) },
    note: 'chunks/s = chunks embedded (tokenizing, ONNX Runtime with its default threads = one per core, mean pooling) divided by wall time, in the worker thread, on a machine shared with other work (see the load average); a query during an ingestion waits for at most one batch of it',
  });
}
