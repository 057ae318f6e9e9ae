import type { ContentBlock, CountTokensRequest } from './anthropic-schema.js';
import { systemText } from './translate-request.js';

/** What one image counts, whatever its size (the vendor's upper bound for a 1.15 MP image). */
export const IMAGE_TOKENS = 1600;
/** What each message adds for its role and separators. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Characters per token of the estimate: the usual figure for English text and code. */
export const CHARS_PER_TOKEN = 4;

/**
 * The documented estimate of a request's input tokens, without calling any model
 * (docs/adr/0024): a token per four characters of every text the model reads (system
 * prompt, message text, tool calls and results, tool definitions as JSON), four per message,
 * 1600 per image; at least one.
 */
export function estimateInputTokens(
  req: Pick<CountTokensRequest, 'system' | 'messages' | 'tools'>,
  extraSystem = '',
): number {
  let chars = extraSystem.length + systemText(req.system).length;
  let tokens = 0;
  for (const m of req.messages) {
    tokens += MESSAGE_OVERHEAD_TOKENS;
    if (typeof m.content === 'string') chars += m.content.length;
    else for (const b of m.content) ({ chars, tokens } = addBlock(b, chars, tokens));
  }
  for (const t of req.tools ?? []) {
    chars += t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.input_schema).length;
  }
  return Math.max(1, tokens + Math.ceil(chars / CHARS_PER_TOKEN));
}

function addBlock(b: ContentBlock, chars: number, tokens: number) {
  switch (b.type) {
    case 'text':
      return { chars: chars + b.text.length, tokens };
    case 'image':
      return { chars, tokens: tokens + IMAGE_TOKENS };
    case 'tool_use':
      return { chars: chars + b.name.length + JSON.stringify(b.input ?? {}).length, tokens };
    case 'tool_result': {
      if (b.content === undefined) return { chars, tokens };
      if (typeof b.content === 'string') return { chars: chars + b.content.length, tokens };
      for (const c of b.content) {
        if (c.type === 'text') chars += c.text.length;
        else tokens += IMAGE_TOKENS;
      }
      return { chars, tokens };
    }
    default:
      return { chars, tokens };
  }
}
