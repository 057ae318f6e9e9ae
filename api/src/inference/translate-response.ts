import { randomFillSync } from 'node:crypto';
import type { AnswerBlock, AnthropicMessage, StopReason } from './anthropic-schema.js';

/* The OpenAI chat-completions answer, as far as the platform reads it. */

export interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

export interface OpenAiChoice {
  message?: {
    content?: string | null;
    tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] | null;
  };
  finish_reason?: string | null;
  /** vLLM's extra: the stop string (or token id) that ended the output. */
  stop_reason?: string | number | null;
}

export interface OpenAiChatResponse {
  choices?: OpenAiChoice[];
  usage?: OpenAiUsage | null;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random bytes for ids, filled 128 ids at a time (one call to the CSPRNG, not one per id). */
const ID_BYTES = 24;
const pool = Buffer.alloc(ID_BYTES * 128);
let poolAt = pool.length;

/** A vendor-style id: the prefix and 24 base62 characters (`msg_…`, `toolu_…`, `req_…`). */
export function vendorId(prefix: 'msg' | 'toolu' | 'req'): string {
  if (poolAt + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = `${prefix}_01`;
  for (let i = poolAt; i < poolAt + ID_BYTES; i++)
    out += ALPHABET[(pool[i] as number) % ALPHABET.length];
  poolAt += ID_BYTES;
  return out;
}

/** The stop reason (and the matched stop sequence) of an OpenAI finish. */
export function stopReasonOf(
  finish: string | null | undefined,
  matched: string | number | null | undefined,
  stopSequences: readonly string[] | undefined,
  calledTools: boolean,
): { stop_reason: StopReason; stop_sequence: string | null } {
  if (
    finish === 'tool_calls' ||
    finish === 'function_call' ||
    (calledTools && finish !== 'length')
  ) {
    return { stop_reason: 'tool_use', stop_sequence: null };
  }
  if (finish === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  if (finish === 'content_filter') return { stop_reason: 'refusal', stop_sequence: null };
  if (typeof matched === 'string' && (stopSequences ?? []).includes(matched)) {
    return { stop_reason: 'stop_sequence', stop_sequence: matched };
  }
  return { stop_reason: 'end_turn', stop_sequence: null };
}

/** Tool arguments as the input object; arguments that are not a JSON object become `{}`. */
export function toolInput(args: string | undefined): Record<string, unknown> {
  if (args === undefined || args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function usageOf(u: OpenAiUsage | null | undefined): AnthropicMessage['usage'] {
  return {
    input_tokens: u?.prompt_tokens ?? 0,
    output_tokens: u?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

/** An OpenAI chat completion as the vendor's Message (docs/adr/0024). */
export function toAnthropicMessage(
  res: OpenAiChatResponse,
  ctx: { model: string; stopSequences?: readonly string[]; id?: string },
): AnthropicMessage {
  const choice = res.choices?.[0];
  const content: AnswerBlock[] = [];
  const text = choice?.message?.content;
  if (typeof text === 'string' && text !== '') content.push({ type: 'text', text });
  const calls = choice?.message?.tool_calls ?? [];
  for (const call of calls) {
    content.push({
      type: 'tool_use',
      id: vendorId('toolu'),
      name: call.function?.name ?? '',
      input: toolInput(call.function?.arguments),
    });
  }
  return {
    id: ctx.id ?? vendorId('msg'),
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    ...stopReasonOf(
      choice?.finish_reason,
      choice?.stop_reason,
      ctx.stopSequences,
      calls.length > 0,
    ),
    usage: usageOf(res.usage),
  };
}
