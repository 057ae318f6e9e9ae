import { TooManyChunks } from './engine-errors.js';

/** Characters per chunk (about 200 tokens of English: all-MiniLM-L6-v2 reads 256). */
export const DEFAULT_CHUNK_SIZE = 800;
/** Characters a chunk repeats of the one before. */
export const DEFAULT_CHUNK_OVERLAP = 100;

export interface ChunkOptions {
  /** The most characters of a chunk. */
  size: number;
  /** Characters repeated from the previous chunk's end; less than half of `size`. */
  overlap: number;
  /** More chunks than this is TooManyChunks (nothing is answered). */
  maxChunks: number;
}

export interface Chunk {
  /** 0, 1, 2… in the text's order. */
  index: number;
  text: string;
  /** Where the chunk is in the text: `text.slice(start, end)` (then trimmed) is the chunk. */
  start: number;
  end: number;
}

/** Breaks to end a chunk at, best first; each is searched in the chunk's second half. */
const BREAKS: readonly RegExp[] = [/\n\n/g, /\n/g, /[.!?。！？][)"'’”]?\s/g, /[;:,]\s/g, /\s/g];

/**
 * Splits a text into chunks of at most `size` characters, each starting `overlap` characters
 * (at a word's start) before the previous one ended, so a sentence cut at a boundary is whole
 * in one of the two. A chunk ends at the last paragraph break in its second half, else the
 * last line break, sentence end, clause end or space, else at `size` (never inside a UTF-16
 * surrogate pair). Chunks are trimmed; blank ones are skipped. By characters, not tokens: the
 * text kept is the file's own (the tokenizer lowercases and drops accents), and 800 characters
 * of prose are well under the embedding model's 256 tokens (docs/adr/0031).
 */
export function chunkText(text: string, opts: ChunkOptions): Chunk[] {
  const { size, overlap, maxChunks } = opts;
  if (!Number.isInteger(size) || size < 2) throw new RangeError('size must be at least 2');
  if (!Number.isInteger(overlap) || overlap < 0 || overlap * 2 >= size) {
    throw new RangeError('overlap must be from 0 to less than half of size');
  }
  const chunks: Chunk[] = [];
  const last = text.trimEnd().length;
  let pos = skipSpace(text, 0);
  while (pos < last) {
    let end = Math.min(pos + size, last);
    if (end < last) end = breakBefore(text, pos + Math.floor(size / 2), end);
    const piece = text.slice(pos, end);
    const trimmed = piece.trimEnd();
    if (trimmed !== '') {
      if (chunks.length >= maxChunks) {
        throw new TooManyChunks(
          `the document's text makes more than ${maxChunks} chunks of ${size} characters`,
        );
      }
      chunks.push({ index: chunks.length, text: trimmed, start: pos, end: pos + trimmed.length });
    }
    if (end >= last) break;
    pos = skipSpace(text, nextStart(text, Math.max(end - overlap, pos + 1), end));
  }
  return chunks;
}

/** The best break in [from, to): where the chunk ends (the break's text stays in it). */
function breakBefore(text: string, from: number, to: number): number {
  const span = text.slice(from, to);
  for (const re of BREAKS) {
    let best = -1;
    re.lastIndex = 0;
    for (let m = re.exec(span); m; m = re.exec(span)) best = m.index + m[0].length;
    if (best > 0) return from + best;
  }
  return isHighSurrogate(text.charCodeAt(to - 1)) ? to - 1 : to;
}

/** The start of the first word at or after `from` and before `end`; else `from` itself. */
function nextStart(text: string, from: number, end: number): number {
  if (from === 0 || /\s/.test(text[from - 1] ?? '')) return from;
  for (let i = from; i < end; i += 1) if (/\s/.test(text[i] ?? '')) return i + 1;
  return isLowSurrogate(text.charCodeAt(from)) ? from + 1 : from;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i] as string)) i += 1;
  return i;
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
