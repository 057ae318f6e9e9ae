import type { Response as ExpressResponse } from 'express';
import { createParser } from 'eventsource-parser';
import type { Logger } from '@aiplane/lib';
import type { FetchLike } from '@aiplane/lib/mcp';
import { isUuid } from '@aiplane/lib/service';
import type { Agent } from '../agents/store.js';
import type { AnthropicModelInfo, MessagesRequest } from './anthropic-schema.js';
import { vendorErrorOf, VendorError } from './anthropic-errors.js';
import { callBackend } from './backend-client.js';
import { estimateInputTokens, tokenizeInputTokens } from './count-tokens.js';
import type { InferenceMetrics } from './inference-metrics.js';
import type { ModelBackend, ModelCatalogue } from './model-catalogue.js';
import type { Tokenizers } from './tokenizers.js';
import { toOpenAiRequest } from './translate-request.js';
import { toAnthropicMessage, type OpenAiChatResponse } from './translate-response.js';
import {
  errorEvent,
  formatEvent,
  type OpenAiStreamChunk,
  StreamTranslator,
} from './translate-stream.js';

/** Model ids under the vendor's mount (spec: Compatibility messages API rules). */
export const MODEL_PREFIX = 'anthropic-model-';
export const AGENT_PREFIX = 'anthropic-agent-';

export interface MessagesOptions {
  catalogue: ModelCatalogue;
  agents: {
    get(org: string, id: string): Promise<Agent | undefined>;
    list(org: string): Promise<Agent[]>;
  };
  /** Dials public addresses only (the SSRF rules at dial time). */
  remoteFetch: FetchLike;
  /** Dials in-cluster backends (marked so by a platform admin). */
  clusterFetch: FetchLike;
  /** The catalogue's tokenizer.json files, for count_tokens. */
  tokenizers: Pick<Tokenizers, 'counter'>;
  requestTimeoutMs: number;
  retryBaseMs: number;
  logger: Logger;
  metrics: InferenceMetrics;
}

/** What a model id names: the backend, and the agent when it is one. */
export interface Target {
  backend: ModelBackend;
  agent?: Agent;
}

/** The vendor's messages, count_tokens and models, on the platform's catalogue and agents. */
export class Messages {
  constructor(private readonly opts: MessagesOptions) {}

  /**
   * What `model` names for the organization: `anthropic-agent-<uuid>` (an agent of the
   * organization; any other is 404, never 403), `anthropic-model-<name>` or a bare name
   * (an active chat model of the organization, else the platform-wide one).
   */
  async resolve(organizationId: string, model: string): Promise<Target> {
    if (model.startsWith(AGENT_PREFIX)) {
      const id = model.slice(AGENT_PREFIX.length);
      const agent = isUuid(id) ? await this.opts.agents.get(organizationId, id) : undefined;
      if (!agent) throw new VendorError('not_found_error', `model: ${model} was not found`);
      if (!agent.model) {
        throw new VendorError('invalid_request_error', `model: the agent ${id} has no model`);
      }
      const backend = await this.opts.catalogue.backendFor(organizationId, agent.model, 'chat');
      if (!backend) {
        throw new VendorError(
          'not_found_error',
          `model: the agent’s model ${agent.model} is not an active chat model of the catalogue`,
        );
      }
      return { backend, agent };
    }
    const name = model.startsWith(MODEL_PREFIX) ? model.slice(MODEL_PREFIX.length) : model;
    const backend = await this.opts.catalogue.backendFor(organizationId, name, 'chat');
    if (!backend) throw new VendorError('not_found_error', `model: ${model} was not found`);
    return { backend };
  }

  /** The caller's active chat models, then the agents they may use, in the vendor's shape. */
  async models(organizationId: string): Promise<AnthropicModelInfo[]> {
    const chat = await this.opts.catalogue.chatModels(organizationId);
    const usable = new Set(chat.map((m) => m.name));
    const models = chat.map((m) => ({
      type: 'model' as const,
      id: `${MODEL_PREFIX}${m.name}`,
      display_name: m.name,
      created_at: m.createdAt.toISOString(),
    }));
    const agents = (await this.opts.agents.list(organizationId))
      // An agent is listed when a message to it could be answered: its model is in use.
      .filter((a) => a.model !== null && usable.has(a.model))
      .map((a) => ({
        type: 'model' as const,
        id: `${AGENT_PREFIX}${a.id}`,
        display_name: a.name,
        created_at: a.createdAt.toISOString(),
      }));
    return [...models, ...agents];
  }

  /** One entry of {@link models} by id (a bare name or either prefix); 404 when not usable. */
  async model(organizationId: string, id: string): Promise<AnthropicModelInfo> {
    const target = await this.resolve(organizationId, id);
    if (target.agent) {
      return {
        type: 'model',
        id: `${AGENT_PREFIX}${target.agent.id}`,
        display_name: target.agent.name,
        created_at: target.agent.createdAt.toISOString(),
      };
    }
    return {
      type: 'model',
      id: `${MODEL_PREFIX}${target.backend.name}`,
      display_name: target.backend.name,
      created_at: target.backend.createdAt.toISOString(),
    };
  }

  /**
   * Input tokens of a request without calling any model (count-tokens.ts): counted with the
   * model's tokenizer.json when the catalogue names one that loads, else the estimate.
   */
  async countTokens(
    organizationId: string,
    req: Parameters<typeof estimateInputTokens>[0] & { model: string },
  ): Promise<number> {
    const target = await this.resolve(organizationId, req.model);
    const instructions = target.agent?.instructions ?? '';
    const file = target.backend.tokenizer;
    const count = file === null ? undefined : await this.opts.tokenizers.counter(file);
    return count === undefined
      ? estimateInputTokens(req, instructions)
      : tokenizeInputTokens(req, instructions, count);
  }

  /**
   * Answers one messages request on `res`: resolves the model, translates, calls the backend
   * (retried before anything reached the client), and writes the vendor's message or event
   * stream. The client going away aborts the backend call; the whole request has
   * `requestTimeoutMs`.
   */
  async create(organizationId: string, req: MessagesRequest, res: ExpressResponse): Promise<void> {
    const started = performance.now();
    const target = await this.resolve(organizationId, req.model);
    const { backend } = target;
    const labels = { model: backend.name, organization: organizationId };
    const stream = req.stream === true;
    const count = (outcome: string) =>
      this.opts.metrics.requests.inc({ ...labels, stream: String(stream), outcome });
    const body = toOpenAiRequest(req, {
      backendModel: backend.backendModel,
      instructions: target.agent?.instructions ?? null,
    });
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort(new Error('the client went away'));
    });
    const signal = AbortSignal.any([gone.signal, AbortSignal.timeout(this.opts.requestTimeoutMs)]);
    let upstream: Response;
    try {
      upstream = await callBackend({
        fetch: backend.inCluster ? this.opts.clusterFetch : this.opts.remoteFetch,
        url: `${backend.baseUrl.replace(/\/+$/, '')}/chat/completions`,
        apiKey: backend.apiKey,
        body,
        signal,
        retryBaseMs: this.opts.retryBaseMs,
        onRetry: (attempt, reason, delayMs) => {
          this.opts.metrics.retries.inc({ model: backend.name });
          this.opts.logger.warn(
            { ...labels, attempt, reason, delayMs },
            'retrying the model backend',
          );
        },
      });
    } catch (err) {
      count(gone.signal.aborted ? 'aborted' : 'backend_error');
      throw err;
    }
    const tokens = (input: number, output: number) => {
      this.opts.metrics.tokens.inc({ ...labels, direction: 'input' }, input);
      this.opts.metrics.tokens.inc({ ...labels, direction: 'output' }, output);
    };

    if (!stream) {
      let answer: OpenAiChatResponse;
      try {
        answer = (await upstream.json()) as OpenAiChatResponse;
      } catch (err) {
        count(gone.signal.aborted ? 'aborted' : 'backend_error');
        if (gone.signal.aborted) return;
        throw new VendorError(
          'api_error',
          `the model backend’s answer could not be read: ${(err as Error).message}`,
        );
      }
      const message = toAnthropicMessage(answer, {
        model: req.model,
        stopSequences: req.stop_sequences,
      });
      this.opts.metrics.timeToFirstToken.observe(labels, (performance.now() - started) / 1000);
      tokens(message.usage.input_tokens, message.usage.output_tokens);
      count('ok');
      res.json(message);
      return;
    }

    // From here bytes reach the client: no more retries; a failure is an `error` event.
    const translator = new StreamTranslator({
      model: req.model,
      inputTokens: estimateInputTokens(req, target.agent?.instructions ?? ''),
      stopSequences: req.stop_sequences,
    });
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    const write = (events: ReturnType<StreamTranslator['start']>) => {
      if (events.length > 0 && !res.writableEnded) res.write(events.map(formatEvent).join(''));
    };
    write(translator.start());
    let first = true;
    let done = false;
    let broken: string | undefined;
    const parser = createParser({
      onEvent: (e) => {
        if (done) return;
        if (e.data.trim() === '[DONE]') {
          done = true;
          return;
        }
        let chunk: OpenAiStreamChunk;
        try {
          chunk = JSON.parse(e.data) as OpenAiStreamChunk;
        } catch {
          return; // a comment-like line some servers send; nothing to translate
        }
        const events = translator.chunk(chunk);
        if (first && events.some((x) => x.event === 'content_block_delta')) {
          first = false;
          this.opts.metrics.timeToFirstToken.observe(labels, (performance.now() - started) / 1000);
        }
        write(events);
      },
    });
    try {
      const decoder = new TextDecoder();
      for await (const piece of upstream.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(piece, { stream: true }));
        if (done) break;
      }
    } catch (err) {
      broken = (err as Error).message;
    }
    if (gone.signal.aborted) {
      count('aborted');
      return;
    }
    if (broken !== undefined && !done) {
      const e = vendorErrorOf(err(broken, signal)) ?? new VendorError('api_error', broken);
      this.opts.logger.warn({ ...labels, reason: broken }, 'the model backend stream broke');
      count('backend_error');
      write([errorEvent(e.type, e.message)]);
      res.end();
      return;
    }
    write(translator.end());
    const outcome = translator.outcome();
    tokens(outcome.inputTokens, outcome.outputTokens);
    count('ok');
    res.end();
  }
}

function err(reason: string, signal: AbortSignal): VendorError {
  const timedOut = (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
  return timedOut
    ? new VendorError('api_error', 'the model backend did not answer in time')
    : new VendorError('api_error', `the model backend stream broke: ${reason}`);
}
