import type { Response as ExpressResponse } from 'express';
import { createParser } from 'eventsource-parser';
import type { Logger } from '@aiplane/lib';
import type { Principal } from '@aiplane/lib/auth';
import type { LeanResponse, PinnedFetch } from '@aiplane/lib/mcp';
import type { Agent } from '../agents/store.js';
import type { AnthropicModelInfo, MessagesRequest } from './anthropic-schema.js';
import { vendorErrorOf, VendorError } from './anthropic-errors.js';
import { callBackend } from './backend-client.js';
import { estimateInputTokens, tokenizeInputTokens } from './count-tokens.js';
import type { InferenceMetrics } from './inference-metrics.js';
import type { ModelBackend, ModelCatalogue } from './model-catalogue.js';
import type { AgentTools, CallerCredential, Toolbox } from './agent-tools.js';
import {
  type OpenAiChatRequest,
  type OpenAiMessage,
  toOpenAiRequest,
} from './translate-request.js';
import {
  toAnthropicMessage,
  toolInput,
  type OpenAiChatResponse,
  vendorId,
} from './translate-response.js';
import type { Tokenizers } from './tokenizers.js';
import {
  errorEvent,
  formatEvent,
  type HiddenCall,
  type OpenAiStreamChunk,
  type StreamEvent,
  StreamTranslator,
} from './translate-stream.js';

/** Model ids under the vendor's mount (spec: Compatibility messages API rules). */
export const MODEL_PREFIX = 'anthropic-model-';
export const AGENT_PREFIX = 'anthropic-agent-';

export interface MessagesOptions {
  catalogue: ModelCatalogue;
  /** The agents a caller may use: their own, shared with them, all for an organization admin. */
  agents: {
    usable(organizationId: string, principal: Principal, id: string): Promise<Agent | undefined>;
    usableList(organizationId: string, principal: Principal): Promise<Agent[]>;
  };
  /** Dials public addresses only (the SSRF rules at dial time). */
  remoteFetch: Pick<PinnedFetch, 'request'>;
  /** Dials in-cluster backends (marked so by a platform admin). */
  clusterFetch: Pick<PinnedFetch, 'request'>;
  /**
   * Passages of an agent's documents nearest the caller's question, read with the caller's
   * access (the knowledge domain's collection search; ADR 0033).
   */
  retrieval?: AgentRetrieval;
  /** The catalogue's tokenizer.json files, for count_tokens. */
  tokenizers: Pick<Tokenizers, 'counter'>;
  requestTimeoutMs: number;
  retryBaseMs: number;
  logger: Logger;
  metrics: InferenceMetrics;
  /** Agents' MCP tools, through the gateway as the caller (docs/adr/0029). */
  agentTools: AgentTools;
  /** Backend calls one agent request may make (tool rounds included). */
  agentMaxSteps: number;
}

/** Passages of files for an agent's context (ADR 0033). */
export interface AgentRetrieval {
  passages(
    organizationId: string,
    principal: Principal,
    documentIds: string[],
    query: string,
  ): Promise<{ fileName: string; text: string }[]>;
}

/** The text of the request's last user turn: what retrieval looks for. */
export function lastUserText(req: MessagesRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    return m.content
      .flatMap((b) => (b.type === 'text' ? [b.text] : []))
      .join('\n')
      .trim();
  }
  return '';
}

/** The agent's instructions followed by the passages, numbered, with their files' names. */
export function withContext(
  instructions: string,
  passages: { fileName: string; text: string }[],
): string {
  if (passages.length === 0) return instructions;
  const context = passages.map((p, i) => `[${i + 1}] ${p.fileName}\n${p.text}`).join('\n\n');
  return [
    instructions,
    `Passages from the documents you were given (use them when they answer the question, and name the file):\n\n${context}`,
  ]
    .filter((t) => t !== '')
    .join('\n\n');
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
   * What `model` names for the caller in the organization: `anthropic-agent-<uuid>` (an agent
   * they may use; any other is 404, never 403, docs/adr/0035), `anthropic-model-<name>` or a
   * bare name (an active chat model of the organization, else the platform-wide one).
   */
  async resolve(organizationId: string, principal: Principal, model: string): Promise<Target> {
    if (model.startsWith(AGENT_PREFIX)) {
      const id = model.slice(AGENT_PREFIX.length);
      const agent = await this.opts.agents.usable(organizationId, principal, id);
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
  async models(organizationId: string, principal: Principal): Promise<AnthropicModelInfo[]> {
    const chat = await this.opts.catalogue.chatModels(organizationId);
    const usable = new Set(chat.map((m) => m.name));
    const models = chat.map((m) => ({
      type: 'model' as const,
      id: `${MODEL_PREFIX}${m.name}`,
      display_name: m.name,
      created_at: m.createdAt.toISOString(),
    }));
    const agents = (await this.opts.agents.usableList(organizationId, principal))
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
  async model(
    organizationId: string,
    principal: Principal,
    id: string,
  ): Promise<AnthropicModelInfo> {
    const target = await this.resolve(organizationId, principal, id);
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
    principal: Principal,
    req: Parameters<typeof estimateInputTokens>[0] & { model: string },
  ): Promise<number> {
    const target = await this.resolve(organizationId, principal, req.model);
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
   * stream. An agent's MCP tools are offered with the caller's and run through the gateway as
   * the caller, step after step up to the step bound (docs/adr/0029). The client going away
   * aborts the backend call; the whole request has `requestTimeoutMs`.
   */
  async create(
    organizationId: string,
    req: MessagesRequest,
    res: ExpressResponse,
    caller: CallerCredential,
    principal: Principal,
  ): Promise<void> {
    const started = performance.now();
    const target = await this.resolve(organizationId, principal, req.model);
    const { backend } = target;
    const labels = { model: backend.name, organization: organizationId };
    const stream = req.stream === true;
    // One signal for the client going away and the request's time running out (one
    // controller and a timer: cheaper per request than AbortSignal.any and .timeout).
    const abort = new AbortController();
    let gone = false;
    const clientGone = () => gone;
    const timer = setTimeout(
      () => abort.abort(new DOMException('the request took too long', 'TimeoutError')),
      this.opts.requestTimeoutMs,
    );
    res.on('close', () => {
      clearTimeout(timer);
      if (res.writableFinished) return;
      gone = true;
      abort.abort(new Error('the client went away'));
    });
    const signal = abort.signal;
    const instructions = await this.instructionsOf(organizationId, target.agent, req, principal);
    // Translated (and refused when it cannot be) before any session with the agent's servers
    // is opened; the agent's tools are added to it after.
    const body = toOpenAiRequest(req, {
      backendModel: backend.backendModel,
      instructions: instructions === '' ? null : instructions,
    });
    const toolbox = await this.toolboxOf(target.agent, req, caller, signal);
    try {
      const run: Run = {
        req,
        res,
        backend,
        labels,
        started,
        clientGone,
        signal,
        toolbox,
        body: toolbox ? withAgentTools(body, toolbox) : body,
        instructions,
        count: (outcome: string) =>
          this.opts.metrics.requests.inc({ ...labels, stream: String(stream), outcome }),
      };
      if (stream) await this.streamed(run);
      else await this.whole(run);
    } finally {
      await toolbox?.close();
    }
  }

  /**
   * The agent's instructions, with the passages of its documents nearest the question when it
   * has documents (read as the caller: a file they may not read gives nothing).
   */
  private async instructionsOf(
    organizationId: string,
    agent: Agent | undefined,
    req: MessagesRequest,
    principal: Principal,
  ): Promise<string> {
    const instructions = agent?.instructions ?? '';
    const query = lastUserText(req);
    if (!agent || agent.documentIds.length === 0 || !this.opts.retrieval || !query) {
      return instructions;
    }
    const passages = await this.opts.retrieval.passages(
      organizationId,
      principal,
      agent.documentIds,
      query,
    );
    return withContext(instructions, passages);
  }

  /** The agent's tools for this request, when it has MCP servers and tools are not refused. */
  private async toolboxOf(
    agent: Agent | undefined,
    req: MessagesRequest,
    caller: CallerCredential,
    signal: AbortSignal,
  ): Promise<Toolbox | undefined> {
    if (!agent || agent.mcpServerIds.length === 0 || req.tool_choice?.type === 'none') {
      return undefined;
    }
    const clientTools = new Set((req.tools ?? []).map((t) => t.name));
    return this.opts.agentTools.open(agent.mcpServerIds, caller, signal, clientTools);
  }

  /** One backend call of the run with `messages` (retried while nothing of it was read). */
  private async step(run: Run, messages: OpenAiMessage[]): Promise<LeanResponse> {
    const { backend, labels } = run;
    try {
      return await callBackend({
        request: (backend.inCluster ? this.opts.clusterFetch : this.opts.remoteFetch).request,
        url: `${backend.baseUrl.replace(/\/+$/, '')}/chat/completions`,
        apiKey: backend.apiKey,
        body: { ...run.body, messages },
        signal: run.signal,
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
      run.count(run.clientGone() ? 'aborted' : 'backend_error');
      throw err;
    }
  }

  /**
   * Runs the agent's tool calls of one step through the gateway (at most
   * MAX_TOOL_CALLS_PER_STEP; the rest answer an error) and appends the assistant's turn and the
   * results to `messages` (a failed call is a result with `is_error`).
   */
  private async runTools(
    run: Run,
    messages: OpenAiMessage[],
    text: string,
    calls: HiddenCall[],
  ): Promise<void> {
    messages.push({
      role: 'assistant',
      content: text === '' ? null : text,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments === '' ? '{}' : c.arguments },
      })),
    });
    for (const [i, c] of calls.entries()) {
      const outcome =
        i < MAX_TOOL_CALLS_PER_STEP
          ? await run.toolbox!.call(c.name, toolInput(c.arguments), run.signal)
          : {
              text: `not run: at most ${MAX_TOOL_CALLS_PER_STEP} tool calls are run per step`,
              isError: true,
            };
      this.opts.metrics.agentToolCalls.inc({
        ...run.labels,
        outcome: outcome.isError ? 'error' : 'ok',
      });
      messages.push({
        role: 'tool',
        tool_call_id: c.id,
        content: outcome.isError ? `Error: ${outcome.text}` : outcome.text,
      });
    }
  }

  private tokens(run: Run, input: number, output: number): void {
    this.opts.metrics.tokens.inc({ ...run.labels, direction: 'input' }, input);
    this.opts.metrics.tokens.inc({ ...run.labels, direction: 'output' }, output);
  }

  /** The non-streaming answer: every step's text, then the last step's own blocks. */
  private async whole(run: Run): Promise<void> {
    const { req, toolbox } = run;
    const messages = [...run.body.messages];
    const texts: string[] = [];
    const spent = { input: 0, output: 0 };
    for (let step = 1; ; step++) {
      const upstream = await this.step(run, messages);
      let answer: OpenAiChatResponse;
      try {
        answer = (await upstream.body.json()) as OpenAiChatResponse;
      } catch (err) {
        run.count(run.clientGone() ? 'aborted' : 'backend_error');
        if (run.clientGone()) return;
        throw new VendorError(
          'api_error',
          `the model backend’s answer could not be read: ${(err as Error).message}`,
        );
      }
      spent.input += answer.usage?.prompt_tokens ?? 0;
      spent.output += answer.usage?.completion_tokens ?? 0;
      const choice = answer.choices?.[0];
      const calls = choice?.message?.tool_calls ?? [];
      const isAgents = (c: (typeof calls)[number]) => toolbox?.has(c.function?.name ?? '') === true;
      const hidden = calls.filter(isAgents);
      const shown = calls.filter((c) => !isAgents(c));
      const text = choice?.message?.content ?? '';
      if (hidden.length > 0 && shown.length === 0 && step < this.opts.agentMaxSteps) {
        if (text !== '') texts.push(text);
        try {
          await this.runTools(
            run,
            messages,
            text,
            hidden.map((c) => ({
              id: c.id || `call_${vendorId('toolu')}`,
              name: c.function?.name ?? '',
              arguments: c.function?.arguments ?? '',
            })),
          );
        } catch (err) {
          run.count(run.clientGone() ? 'aborted' : 'backend_error');
          if (run.clientGone()) return;
          throw toolsFailed(err);
        }
        continue;
      }
      const last: OpenAiChatResponse = choice
        ? { ...answer, choices: [{ ...choice, message: { ...choice.message, tool_calls: shown } }] }
        : answer;
      const message = toAnthropicMessage(last, {
        model: req.model,
        stopSequences: req.stop_sequences,
      });
      // Cut at the step bound while the model still wanted its tools: the vendor's pause_turn.
      if (hidden.length > 0 && shown.length === 0) {
        message.stop_reason = 'pause_turn';
        message.stop_sequence = null;
      }
      message.content = [
        ...texts.map((t) => ({ type: 'text' as const, text: t })),
        ...message.content,
      ];
      message.usage = { ...message.usage, input_tokens: spent.input, output_tokens: spent.output };
      this.opts.metrics.timeToFirstToken.observe(
        run.labels,
        (performance.now() - run.started) / 1000,
      );
      this.tokens(run, spent.input, spent.output);
      run.count('ok');
      run.res.json(message);
      return;
    }
  }

  /** The streaming answer: one vendor message over every step of the run. */
  private async streamed(run: Run): Promise<void> {
    const { req, res, toolbox } = run;
    const messages = [...run.body.messages];
    // The first call before any byte: its failure is an ordinary error answer.
    let upstream = await this.step(run, messages);
    // From here bytes reach the client: no more retries; a failure is an `error` event.
    const translator = new StreamTranslator({
      model: req.model,
      inputTokens: estimateInputTokens(req, run.instructions),
      stopSequences: req.stop_sequences,
      ...(toolbox ? { hidden: (name: string) => toolbox.has(name) } : {}),
    });
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // The headers and message_start wait for the backend's first piece and leave with it, in
    // one write (the vendor, too, starts the message when the model starts answering).
    let opening: StreamEvent[] | undefined = translator.start();
    const write = (events: StreamEvent[]) => {
      const all = opening ? [...opening, ...events] : events;
      opening = undefined;
      if (all.length > 0 && !res.writableEnded) res.write(all.map(formatEvent).join(''));
    };
    const fail = (e: VendorError, counted = false) => {
      if (!counted) run.count('backend_error');
      write([errorEvent(e.type, e.message)]);
      res.end();
    };
    let first = true;
    for (let step = 1; ; step++) {
      if (step > 1) {
        try {
          upstream = await this.step(run, messages);
        } catch (err) {
          if (run.clientGone()) return;
          // step() counted it.
          fail(vendorErrorOf(err) ?? new VendorError('api_error', (err as Error).message), true);
          return;
        }
      }
      const broken = await this.pump(upstream, translator, (events) => {
        if (first && events.some((x) => x.event === 'content_block_delta')) {
          first = false;
          this.opts.metrics.timeToFirstToken.observe(
            run.labels,
            (performance.now() - run.started) / 1000,
          );
        }
        write(events);
      });
      if (run.clientGone()) {
        run.count('aborted');
        return;
      }
      if (broken !== undefined) {
        this.opts.logger.warn({ ...run.labels, reason: broken }, 'the model backend stream broke');
        fail(vendorErrorOf(err(broken, run.signal)) ?? new VendorError('api_error', broken));
        return;
      }
      const { events, step: ended } = translator.endStep();
      write(events);
      if (ended.hidden.length > 0 && !ended.calledClientTools) {
        if (step < this.opts.agentMaxSteps) {
          write([{ event: 'ping', data: { type: 'ping' } }]);
          try {
            await this.runTools(run, messages, ended.text, ended.hidden);
          } catch (err) {
            if (run.clientGone()) {
              run.count('aborted');
              return;
            }
            fail(toolsFailed(err));
            return;
          }
          translator.nextStep();
          continue;
        }
        write(translator.end('pause_turn'));
      } else {
        write(translator.end());
      }
      const outcome = translator.outcome();
      this.tokens(run, outcome.inputTokens, outcome.outputTokens);
      run.count('ok');
      res.end();
      return;
    }
  }

  /**
   * Feeds one backend event stream to the translator until `[DONE]` or its end; the reason
   * it broke, if it did before `[DONE]`.
   */
  private async pump(
    upstream: LeanResponse,
    translator: StreamTranslator,
    write: (events: StreamEvent[]) => void,
  ): Promise<string | undefined> {
    let done = false;
    // The events of one piece of the backend's stream reach the client in one write.
    let batch: StreamEvent[] = [];
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
        batch.push(...translator.chunk(chunk));
      },
    });
    const flush = () => {
      if (batch.length === 0) return;
      write(batch);
      batch = [];
    };
    const pieces = upstream.body[Symbol.asyncIterator]();
    let drained = false;
    try {
      const decoder = new TextDecoder();
      for (let r = await pieces.next(); !r.done; r = await pieces.next()) {
        parser.feed(decoder.decode(r.value, { stream: true }));
        flush();
        if (done) {
          drained = true;
          drain(pieces);
          break;
        }
      }
    } catch (e) {
      flush();
      return done ? undefined : (e as Error).message;
    } finally {
      // Left early (a chunk that could not be translated): the stream is closed, never kept.
      if (!drained) void pieces.return?.().catch(() => undefined);
    }
    return undefined;
  }
}

/** One messages request in progress. */
interface Run {
  req: MessagesRequest;
  res: ExpressResponse;
  backend: ModelBackend;
  labels: { model: string; organization: string };
  started: number;
  /** Whether the client went away (the signal is aborted then, too). */
  clientGone: () => boolean;
  /** The client going away, or the request's time running out. */
  signal: AbortSignal;
  toolbox: Toolbox | undefined;
  body: OpenAiChatRequest;
  /** The agent's instructions ('' for a model). */
  instructions: string;
  count: (outcome: string) => void;
}

/**
 * The backend request with an agent's tools offered after the caller's, and why a server's
 * tools are missing at the end of the system prompt (docs/adr/0029).
 */
function withAgentTools(body: OpenAiChatRequest, toolbox: Toolbox): OpenAiChatRequest {
  const notes = toolbox.unavailable.map(
    (u) => `The tools of MCP server ${u.serverId} are unavailable to this user: ${u.reason}`,
  );
  let messages = body.messages;
  if (notes.length > 0) {
    const [first, ...rest] = messages;
    messages =
      first?.role === 'system'
        ? [{ role: 'system', content: [first.content, ...notes].join('\n\n') }, ...rest]
        : [{ role: 'system', content: notes.join('\n\n') }, ...messages];
  }
  const tools = toolbox.tools.map((t) => ({
    type: 'function' as const,
    function: {
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      parameters: t.inputSchema,
    },
  }));
  return {
    ...body,
    messages,
    ...(tools.length > 0 ? { tools: [...(body.tools ?? []), ...tools] } : {}),
  };
}

/** Tool calls run one after another within a step; more than this answer an error. */
export const MAX_TOOL_CALLS_PER_STEP = 16;

/** An agent's tool round that ended by an exception: the request's time ran out. */
function toolsFailed(e: unknown): VendorError {
  return (
    vendorErrorOf(e) ??
    new VendorError('api_error', 'the agent’s tools did not answer within the request’s time')
  );
}

function err(reason: string, signal: AbortSignal): VendorError {
  const timedOut = (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
  return timedOut
    ? new VendorError('api_error', 'the model backend did not answer in time')
    : new VendorError('api_error', `the model backend stream broke: ${reason}`);
}

/** How long the rest of a backend's stream after `[DONE]` may take before it is cut. */
const DRAIN_MS = 5000;

/**
 * Reads what is left of a backend's stream after `[DONE]` (its end, usually already on the
 * wire) without holding the answer back: a stream read to its end keeps its connection for the
 * next request and costs no AbortError, where one left early is destroyed. One that does not
 * end within DRAIN_MS is cut.
 */
function drain(pieces: AsyncIterator<Uint8Array>): void {
  const cut = setTimeout(() => void pieces.return?.().catch(() => undefined), DRAIN_MS);
  cut.unref();
  const next = (): void => {
    pieces.next().then(
      (r) => (r.done ? clearTimeout(cut) : next()),
      () => clearTimeout(cut),
    );
  };
  next();
}
