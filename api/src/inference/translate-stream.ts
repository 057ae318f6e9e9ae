import type { StopReason } from './anthropic-schema.js';
import { stopReasonOf, type OpenAiUsage, vendorId } from './translate-response.js';

/** One chunk of an OpenAI chat-completions stream (`data: {…}`). */
export interface OpenAiStreamChunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: {
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
    finish_reason?: string | null;
    stop_reason?: string | number | null;
  }[];
  usage?: OpenAiUsage | null;
}

/** One server-sent event of the vendor's stream: `event: <type>` and its JSON data. */
export interface StreamEvent {
  event: string;
  data: Record<string, unknown> & { type: string };
}

export function formatEvent(e: StreamEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

type Block =
  | { kind: 'text' }
  | { kind: 'tool'; backendIndex: number; backendId?: string }
  /** A call of one of an agent's own tools: collected, never shown (docs/adr/0029). */
  | { kind: 'hidden'; backendIndex: number; backendId?: string; call: HiddenCall };

/** A tool call the platform runs itself (an agent's MCP tool), as the backend made it. */
export interface HiddenCall {
  id: string;
  name: string;
  arguments: string;
}

/** What one backend stream (one step of an agent's run) ended with. */
export interface StepEnd {
  /** Calls of hidden tools, in order. */
  hidden: HiddenCall[];
  /** Whether the step called a tool the client offered (the run then ends with it). */
  calledClientTools: boolean;
  /** The step's text (shown as it came). */
  text: string;
}

const event = (type: string, data: Record<string, unknown> = {}): StreamEvent => ({
  event: type,
  data: { type, ...data },
});

/**
 * Turns an OpenAI chat-completions stream into the vendor's event sequence (docs/adr/0024):
 * `message_start`, then for each content block `content_block_start`, its deltas
 * (`text_delta`, `input_json_delta`) and `content_block_stop`, a `ping` after the first
 * block starts, then `message_delta` (stop reason, usage) and `message_stop`. Pure: chunks
 * in, events out.
 */
export class StreamTranslator {
  private index = -1;
  private open: Block | undefined;
  private pinged = false;
  private finish: string | null | undefined;
  private matched: string | number | null | undefined;
  private calledTools = false;
  private usage: OpenAiUsage | undefined;
  private outputChars = 0;
  private finished = false;
  private hidden: HiddenCall[] = [];
  private stepText = '';
  /** Tokens of the steps before this one (an agent's tool rounds). */
  private spent = { input: 0, output: 0 };

  constructor(
    private readonly ctx: {
      model: string;
      id?: string;
      /** The estimate of the prompt (the backend tells the real count only at the end). */
      inputTokens: number;
      stopSequences?: readonly string[];
      /** Tool names whose calls are collected for the platform to run, not shown. */
      hidden?: (name: string) => boolean;
    },
  ) {}

  start(): StreamEvent[] {
    return [
      event('message_start', {
        message: {
          id: this.ctx.id ?? vendorId('msg'),
          type: 'message',
          role: 'assistant',
          model: this.ctx.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: this.ctx.inputTokens,
            output_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      }),
    ];
  }

  chunk(c: OpenAiStreamChunk): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (c.usage) this.usage = c.usage;
    const choice = c.choices?.[0];
    if (!choice) return out;
    const text = choice.delta?.content;
    if (typeof text === 'string' && text !== '') {
      if (this.open?.kind !== 'text') out.push(...this.startBlock({ kind: 'text' }));
      this.outputChars += text.length;
      this.stepText += text;
      out.push(
        event('content_block_delta', {
          index: this.index,
          delta: { type: 'text_delta', text },
        }),
      );
    }
    for (const call of choice.delta?.tool_calls ?? []) {
      const backendIndex = call.index ?? 0;
      // A call starts with a new index, or a new id at the same index (some servers send
      // each call whole as index 0); its later chunks carry arguments only.
      const isNew =
        (this.open?.kind !== 'tool' && this.open?.kind !== 'hidden') ||
        this.open.backendIndex !== backendIndex ||
        (call.id !== undefined && call.id !== '' && call.id !== this.open.backendId);
      if (isNew) {
        const name = call.function?.name ?? '';
        if (this.ctx.hidden?.(name) === true) {
          out.push(...this.closeBlock());
          const hidden = { id: call.id || `call_${vendorId('toolu')}`, name, arguments: '' };
          this.hidden.push(hidden);
          this.open = { kind: 'hidden', backendIndex, backendId: call.id, call: hidden };
        } else {
          this.calledTools = true;
          out.push(...this.startBlock({ kind: 'tool', backendIndex, backendId: call.id }, name));
        }
      }
      const args = call.function?.arguments;
      if (typeof args === 'string' && args !== '') {
        this.outputChars += args.length;
        if (this.open?.kind === 'hidden') {
          this.open.call.arguments += args;
          continue;
        }
        out.push(
          event('content_block_delta', {
            index: this.index,
            delta: { type: 'input_json_delta', partial_json: args },
          }),
        );
      }
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
    if (choice.stop_reason !== undefined && choice.stop_reason !== null) {
      this.matched = choice.stop_reason;
    }
    return out;
  }

  /**
   * Ends one backend stream without ending the message: its open block stops, its usage is
   * kept, and what it called is returned. An agent's run then goes on with another stream on
   * the same translator, or calls {@link end}.
   */
  endStep(): { events: StreamEvent[]; step: StepEnd } {
    const events = this.closeBlock();
    const step = { hidden: this.hidden, calledClientTools: this.calledTools, text: this.stepText };
    return { events, step };
  }

  /** Starts the next backend stream of the same message (after {@link endStep}). */
  nextStep(): void {
    const { inputTokens, outputTokens } = this.tokens();
    this.spent = { input: inputTokens, output: outputTokens };
    this.usage = undefined;
    this.outputChars = 0;
    this.finish = undefined;
    this.matched = undefined;
    this.calledTools = false;
    this.hidden = [];
    this.stepText = '';
  }

  /**
   * The closing events: the open block's stop, `message_delta` and `message_stop`.
   * `stopReason` overrides the backend's (an agent's run cut at its step bound: `pause_turn`).
   */
  end(stopReason?: StopReason): StreamEvent[] {
    if (this.finished) return [];
    this.finished = true;
    const out = this.closeBlock();
    const { stop_reason, stop_sequence } =
      stopReason === undefined ? this.stop() : { stop_reason: stopReason, stop_sequence: null };
    const { inputTokens, outputTokens } = this.tokens();
    out.push(
      event('message_delta', {
        delta: { stop_reason, stop_sequence },
        usage: { input_tokens: inputTokens, output_tokens: outputTokens },
      }),
      event('message_stop'),
    );
    return out;
  }

  /** What the stream ended with, for metrics. */
  outcome(): { stopReason: StopReason; inputTokens: number; outputTokens: number } {
    return { stopReason: this.stop().stop_reason, ...this.tokens() };
  }

  private stop() {
    return stopReasonOf(this.finish, this.matched, this.ctx.stopSequences, this.calledTools);
  }

  /** Every step's tokens: the backend's counts, else the estimates. */
  private tokens(): { inputTokens: number; outputTokens: number } {
    return {
      inputTokens: this.spent.input + (this.usage?.prompt_tokens ?? this.ctx.inputTokens),
      outputTokens:
        this.spent.output + (this.usage?.completion_tokens ?? Math.ceil(this.outputChars / 4)),
    };
  }

  private startBlock(block: Block, name = ''): StreamEvent[] {
    const out = this.closeBlock();
    this.index += 1;
    this.open = block;
    out.push(
      event('content_block_start', {
        index: this.index,
        content_block:
          block.kind === 'text'
            ? { type: 'text', text: '' }
            : { type: 'tool_use', id: vendorId('toolu'), name, input: {} },
      }),
    );
    if (!this.pinged) {
      this.pinged = true;
      out.push(event('ping'));
    }
    return out;
  }

  private closeBlock(): StreamEvent[] {
    if (this.open === undefined) return [];
    const hidden = this.open.kind === 'hidden';
    this.open = undefined;
    if (hidden) return [];
    return [event('content_block_stop', { index: this.index })];
  }
}

/** The vendor's `error` event, sent when the stream fails after it began. */
export function errorEvent(type: string, message: string): StreamEvent {
  return event('error', { error: { type, message } });
}
