import { readAll } from './files-blob-store.js';
import type { FileProcessor, ProcessableFile, ProcessingResult } from './files-processor.js';
import { chunkText } from './chunker.js';
import type { KnowledgeCollections } from './collections.js';
import type { CollectionGeneration } from './collections-store.js';
import type { KnowledgeEngineConfig } from './engine-config.js';
import { FileRefused } from './engine-errors.js';
import { extractText } from './extract.js';

/** The page (1, 2, …) a chunk starting at `start` is on, from a PDF's page starts. */
export function pageAt(pageStarts: readonly number[], start: number): number {
  let page = 1;
  for (let i = 0; i < pageStarts.length; i++) if ((pageStarts[i] ?? 0) <= start) page = i + 1;
  return page;
}

/**
 * Makes an uploaded file searchable (ADR 0033): its text extracted (plain text, Markdown, HTML,
 * PDF), cut into overlapping chunks, embedded by each generation's own model and written to
 * the organization's collection (and to a reindex's target). A chunk's metadata, which search
 * filters on: `file_name`, `media_type`, `format`, and `page` for a PDF.
 */
export class IndexingProcessor implements FileProcessor {
  constructor(
    private readonly collections: KnowledgeCollections,
    private readonly limits: KnowledgeEngineConfig,
  ) {}

  async process(file: ProcessableFile, signal: AbortSignal): Promise<ProcessingResult> {
    return this.indexInto(file, () => this.collections.writeTargets(file.organizationId), signal);
  }

  /**
   * Extracts, chunks and embeds the file into `targets` (each with its own model): a file's
   * processing writes to the generations a file goes to, a reindex to its target only.
   */
  async indexInto(
    file: ProcessableFile,
    targets: () => Promise<CollectionGeneration[]>,
    signal: AbortSignal,
  ): Promise<ProcessingResult> {
    const bytes = await readAll(await file.open());
    signal.throwIfAborted();
    const extracted = await extractText(
      { name: file.name, contentType: file.mediaType, bytes },
      { maxBytes: this.limits.maxFileBytes },
    );
    const chunks = chunkText(extracted.text, {
      size: this.limits.chunkSize,
      overlap: this.limits.chunkOverlap,
      maxChunks: this.limits.maxChunksPerFile,
    });
    if (chunks.length === 0) throw new FileRefused('the file has no text');
    const texts = chunks.map((c) => c.text);
    for (const generation of await targets()) {
      const embedder = await this.collections.embedderFor(generation);
      const vectors = await embedder.embed(texts, signal);
      await this.collections.store.putChunks(
        generation,
        file.id,
        chunks.map((c, i) => ({
          ordinal: c.index,
          text: c.text,
          metadata: {
            file_name: file.name,
            media_type: file.mediaType,
            format: extracted.format,
            ...(extracted.pageStarts
              ? { page: String(pageAt(extracted.pageStarts, c.start)) }
              : {}),
          },
          embedding: vectors[i] as Float32Array,
        })),
      );
    }
    return { chunks: chunks.length };
  }
}
