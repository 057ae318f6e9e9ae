import type { Readable } from 'node:stream';
import { FileRefused } from './engine-errors.js';
import { readAll } from './files-blob-store.js';

/** The file a processor is given: what was uploaded, and its bytes on demand. */
export interface ProcessableFile {
  id: string;
  organizationId: string;
  ownerId: string;
  name: string;
  mediaType: string;
  sizeBytes: number;
  sha256: string;
  /** The bytes from the blob store. */
  open(): Promise<Readable>;
}

/** What processing made of a file. */
export interface ProcessingResult {
  /** Chunks indexed for retrieval. */
  chunks: number;
}

/**
 * A file that processing refuses for good (not text, empty, a format no extractor reads, too
 * large): it is `failed` with the message at once, without retries. The engines' refusals
 * (engine-errors.ts) are kinds of it.
 */
export { FileRefused };

/**
 * Turns an uploaded file into what retrieval searches (docs/adr/0032): extraction, chunking,
 * embedding and indexing run behind this interface; the processing job calls it. A thrown
 * {@link FileRefused} fails the file at once; any other error is retried with backoff. `signal`
 * aborts when the API stops (the job then runs again after the restart).
 */
export interface FileProcessor {
  process(file: ProcessableFile, signal: AbortSignal): Promise<ProcessingResult>;
}

/** Characters per chunk of {@link PlainTextProcessor}. */
export const PLAIN_TEXT_CHUNK_CHARS = 1000;

/**
 * The stand-in processor until the extraction and embedding engines are plugged in: reads the
 * file as UTF-8 text (refusing anything else) and counts the chunks of
 * {@link PLAIN_TEXT_CHUNK_CHARS} characters it would make. It indexes nothing.
 */
export class PlainTextProcessor implements FileProcessor {
  async process(file: ProcessableFile, signal: AbortSignal): Promise<ProcessingResult> {
    const bytes = await readAll(await file.open());
    signal.throwIfAborted();
    const text = plainText(bytes);
    if (text.trim() === '') throw new FileRefused('the file has no text');
    return { chunks: Math.ceil([...text].length / PLAIN_TEXT_CHUNK_CHARS) };
  }
}

/** The bytes as UTF-8 text; {@link FileRefused} when they are not (invalid UTF-8, NUL bytes). */
export function plainText(bytes: Buffer): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new FileRefused('the file is not UTF-8 text');
  }
  if (text.includes('\u0000')) throw new FileRefused('the file is not text (it holds NUL bytes)');
  return text;
}
