import type { ContentBlock, MessageParam, MessagesRequest } from './anthropic-schema.js';

/* The OpenAI chat-completions request, as far as the platform writes it. */

export type OpenAiContentPart =
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAiMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAiContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAiToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAiChatRequest {
  model: string;
  messages: OpenAiMessage[];
  max_tokens: number;
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  stop?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  user?: string;
  tools?: {
    type: 'function';
    function: { name: string; description?: string; parameters: unknown };
  }[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: boolean;
}

/** What the platform adds to the caller's request: the backend's model, an agent's prompt. */
export interface TranslationTarget {
  backendModel: string;
  /** An agent's instructions, placed before the caller's own system prompt. */
  instructions?: string | null;
}

/** A request the platform cannot pass on; answered 400 invalid_request_error. */
export class UnsupportedRequest extends Error {
  override readonly name = 'UnsupportedRequest';
}

/**
 * The vendor's Messages request as an OpenAI chat-completions request (docs/adr/0024):
 * one system message first (an agent's instructions, the caller's system prompt, then the
 * conversation's own `system` messages), tool results as `tool` messages right after the assistant turn that
 * called them, images as data URLs, tools as functions.
 */
export function toOpenAiRequest(
  req: MessagesRequest,
  target: TranslationTarget,
): OpenAiChatRequest {
  const messages: OpenAiMessage[] = [];
  const conversation: OpenAiMessage[] = [];
  const midSystem: string[] = [];
  req.messages.forEach((m, i) => {
    if (m.role === 'system') midSystem.push(systemMessageText(m, i));
    else conversation.push(...translateMessage(m, i));
  });
  const system = [target.instructions ?? '', systemText(req.system), ...midSystem].filter(
    (s) => s !== '',
  );
  if (system.length > 0) messages.push({ role: 'system', content: system.join('\n\n') });
  messages.push(...conversation);

  const out: OpenAiChatRequest = {
    model: target.backendModel,
    messages,
    max_tokens: req.max_tokens,
  };
  if (req.stream === true) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  if (req.stop_sequences && req.stop_sequences.length > 0) out.stop = req.stop_sequences;
  if (req.temperature !== undefined) out.temperature = req.temperature;
  if (req.top_p !== undefined) out.top_p = req.top_p;
  if (req.top_k !== undefined) out.top_k = req.top_k;
  const user = req.metadata?.user_id;
  if (typeof user === 'string' && user !== '') out.user = user;

  const choice = req.tool_choice;
  if (req.tools && req.tools.length > 0) {
    out.tools = req.tools.map((t, i) => {
      if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
        throw new UnsupportedRequest(`tools.${i}: only custom tools are supported`);
      }
      return {
        type: 'function',
        function: {
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          parameters: t.input_schema,
        },
      };
    });
    if (choice) {
      out.tool_choice =
        choice.type === 'tool'
          ? { type: 'function', function: { name: choice.name } }
          : TOOL_CHOICE[choice.type];
      if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
    }
  }
  return out;
}

const TOOL_CHOICE = { auto: 'auto', any: 'required', none: 'none' } as const;

export function systemText(system: MessagesRequest['system']): string {
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  return system.map((b) => b.text).join('\n\n');
}

/**
 * A `system` message inside the conversation, as text for the one leading system message: many
 * backends' chat templates take a system message only first, so its place is not kept.
 */
function systemMessageText(m: MessageParam, index: number): string {
  if (typeof m.content === 'string') return m.content;
  return m.content
    .map((b, j) => {
      if (b.type !== 'text') {
        throw new UnsupportedRequest(
          `messages.${index}.content.${j}: a system message takes text blocks only`,
        );
      }
      return b.text;
    })
    .join('\n\n');
}

function translateMessage(m: MessageParam, index: number): OpenAiMessage[] {
  if (typeof m.content === 'string') {
    return [
      m.role === 'user'
        ? { role: 'user', content: m.content }
        : { role: 'assistant', content: m.content },
    ];
  }
  return m.role === 'user' ? userMessages(m.content, index) : [assistantMessage(m.content)];
}

/** Tool results first (they answer the previous assistant turn), then the user's own content. */
function userMessages(blocks: ContentBlock[], index: number): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  const parts: OpenAiContentPart[] = [];
  blocks.forEach((b, j) => {
    switch (b.type) {
      case 'tool_result':
        out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: toolResultText(b) });
        break;
      case 'text':
        parts.push({ type: 'text', text: b.text });
        break;
      case 'image':
        if (b.source.type !== 'base64') {
          // The backend would fetch it from inside the platform's network: not passed on.
          throw new UnsupportedRequest(
            `messages.${index}.content.${j}.source: only base64 images are supported`,
          );
        }
        parts.push({
          type: 'image_url',
          image_url: { url: `data:${b.source.media_type};base64,${b.source.data}` },
        });
        break;
      case 'tool_use':
        throw new UnsupportedRequest(
          `messages.${index}.content.${j}: tool_use blocks belong to assistant messages`,
        );
      default:
        break; // thinking blocks
    }
  });
  if (parts.length > 0) {
    const textOnly = parts.every((p) => p.type === 'text');
    out.push({
      role: 'user',
      content: textOnly ? parts.map((p) => (p as { text: string }).text).join('\n') : parts,
    });
  }
  return out;
}

function assistantMessage(blocks: ContentBlock[]): OpenAiMessage {
  const text: string[] = [];
  const calls: OpenAiToolCall[] = [];
  for (const b of blocks) {
    if (b.type === 'text') text.push(b.text);
    else if (b.type === 'tool_use') {
      calls.push({
        id: b.id,
        type: 'function',
        function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
      });
    }
    // Images, tool results and thinking in an assistant turn have no OpenAI form: dropped.
  }
  return {
    role: 'assistant',
    content: text.length > 0 ? text.join('\n') : null,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

function toolResultText(b: Extract<ContentBlock, { type: 'tool_result' }>): string {
  const content =
    b.content === undefined
      ? ''
      : typeof b.content === 'string'
        ? b.content
        : b.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('\n');
  // OpenAI tool messages have no error flag: the model reads it from the text.
  return b.is_error === true ? `Error: ${content}` : content;
}
