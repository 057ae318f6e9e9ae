import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ContentBlock, CountTokensRequest } from './anthropic-schema.js';
import { systemText } from './translate-request.js';

/** What one image counts, whatever its size (the vendor's upper bound for a 1.15 MP image). */
export const IMAGE_TOKENS = 1600;
/** What each message adds for its role and separators (the chat template's special tokens). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Characters per token of the estimate: the usual figure for English text and code. */
export const CHARS_PER_TOKEN = 4;
/**
 * The most characters a request may have for the model's tokenizer to count it; a longer one
 * gets the estimate (about two seconds of CPU for a WordPiece tokenizer, and more than most
 * models' context windows hold).
 */
export const TOKENIZER_MAX_CHARS = 1_000_000;
/** Texts are tokenized in pieces of at most this many characters, yielding in between. */
export const TOKENIZER_CHUNK_CHARS = 32_768;

type Countable = Pick<CountTokensRequest, 'system' | 'messages' | 'tools'>;

/** Counts one text's tokens without the tokenizer's special tokens. */
export type CountText = (text: string) => number;

/**
 * What the model reads of a request: its texts, each counted on its own (an agent's
 * instructions, the system prompt, message texts, a tool call's name and input as JSON, a
 * tool result's texts, a tool definition's name, description and input schema as JSON), and
 * what is no text: {@link MESSAGE_OVERHEAD_TOKENS} per message, {@link IMAGE_TOKENS} per image.
 */
export function requestTexts(
  req: Countable,
  extraSystem = '',
): { texts: string[]; fixedTokens: number } {
  const texts = [extraSystem, systemText(req.system)];
  let fixedTokens = 0;
  for (const m of req.messages) {
    fixedTokens += MESSAGE_OVERHEAD_TOKENS;
    if (typeof m.content === 'string') texts.push(m.content);
    else for (const b of m.content) fixedTokens += addBlock(b, texts);
  }
  for (const t of req.tools ?? []) {
    texts.push(t.name, t.description ?? '', JSON.stringify(t.input_schema));
  }
  return { texts: texts.filter((t) => t !== ''), fixedTokens };
}

/** Pushes a block's texts; answers its tokens that are no text (images). */
function addBlock(b: ContentBlock, texts: string[]): number {
  switch (b.type) {
    case 'text':
      texts.push(b.text);
      return 0;
    case 'image':
      return IMAGE_TOKENS;
    case 'tool_use':
      texts.push(b.name, JSON.stringify(b.input ?? {}));
      return 0;
    case 'tool_result': {
      if (b.content === undefined) return 0;
      if (typeof b.content === 'string') {
        texts.push(b.content);
        return 0;
      }
      let images = 0;
      for (const c of b.content) {
        if (c.type === 'text') texts.push(c.text);
        else images += IMAGE_TOKENS;
      }
      return images;
    }
    default:
      return 0;
  }
}

/**
 * The documented estimate of a request's input tokens, without calling any model
 * (docs/adr/0024): a token per four characters of every text the model reads, four per
 * message, 1600 per image; at least one.
 */
export function estimateInputTokens(req: Countable, extraSystem = ''): number {
  const { texts, fixedTokens } = requestTexts(req, extraSystem);
  const chars = texts.reduce((n, t) => n + t.length, 0);
  return Math.max(1, fixedTokens + Math.ceil(chars / CHARS_PER_TOKEN));
}

/**
 * A request's input tokens counted with the model's own tokenizer: each text's tokens (no
 * special tokens: the per-message overhead stands for the chat template's), plus the same
 * per-message and per-image tokens as the estimate; at least one. A request of more than
 * {@link TOKENIZER_MAX_CHARS} characters gets the estimate. Long texts are cut into pieces at
 * the start of a whitespace run and the event loop gets a turn between pieces.
 */
export async function tokenizeInputTokens(
  req: Countable,
  extraSystem: string,
  count: CountText,
): Promise<number> {
  const { texts, fixedTokens } = requestTexts(req, extraSystem);
  const chars = texts.reduce((n, t) => n + t.length, 0);
  if (chars > TOKENIZER_MAX_CHARS) return estimateInputTokens(req, extraSystem);
  let tokens = fixedTokens;
  let sinceYield = 0;
  for (const text of texts) {
    for (const piece of pieces(text, TOKENIZER_CHUNK_CHARS)) {
      if (sinceYield >= TOKENIZER_CHUNK_CHARS) {
        await yieldToLoop();
        sinceYield = 0;
      }
      tokens += count(piece);
      sinceYield += piece.length;
    }
  }
  return Math.max(1, tokens);
}

/**
 * `text` in pieces of at most `max` characters, each cut where a whitespace run starts (so
 * tokenizers that split on whitespace first, WordPiece and byte-level BPE, count the same as
 * for the whole text); a piece with no such place is cut at `max` (never inside a surrogate pair).
 */
export function pieces(text: string, max: number): string[] {
  const out: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    let cut = start + max;
    while (cut > start + 1 && !(isSpace(text[cut]) && !isSpace(text[cut - 1]))) cut--;
    if (cut <= start + 1) {
      cut = start + max;
      if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut--; // not between a surrogate pair
    }
    out.push(text.slice(start, cut));
    start = cut;
  }
  out.push(text.slice(start));
  return out;
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
