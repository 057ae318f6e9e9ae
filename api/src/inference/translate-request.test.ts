import assert from 'node:assert/strict';
import type { MessagesRequest } from './anthropic-schema.js';
import { toOpenAiRequest, UnsupportedRequest } from './translate-request.js';

const base = (over: Partial<MessagesRequest>): MessagesRequest => ({
  model: 'anthropic-model-m',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
  ...over,
});
const target = { backendModel: 'backend/m' };

describe('toOpenAiRequest: the vendor request as OpenAI chat', function () {
  it('sends the backend model, max_tokens and a string message as is', function () {
    assert.deepEqual(toOpenAiRequest(base({}), target), {
      model: 'backend/m',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('puts a system string, or system blocks joined, first; an agent’s instructions before it', function () {
    const blocks = toOpenAiRequest(
      base({
        system: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
      { ...target, instructions: 'be an agent' },
    );
    assert.deepEqual(blocks.messages[0], { role: 'system', content: 'be an agent\n\na\n\nb' });
    assert.deepEqual(toOpenAiRequest(base({ system: 'sys' }), target).messages[0], {
      role: 'system',
      content: 'sys',
    });
  });

  it('folds the conversation’s system messages, as the vendor’s command-line tool sends them, into the one leading system message', function () {
    const out = toOpenAiRequest(
      base({
        system: 'caller',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          {
            role: 'system',
            content: [
              { type: 'text', text: 'env' },
              { type: 'text', text: 'more' },
            ],
          },
          { role: 'assistant', content: 'hello' },
          { role: 'system', content: 'late' },
        ],
      }),
      { ...target, instructions: 'agent' },
    );
    assert.deepEqual(out.messages, [
      { role: 'system', content: 'agent\n\ncaller\n\nenv\n\nmore\n\nlate' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('refuses a system message with anything but text blocks', function () {
    assert.throws(
      () =>
        toOpenAiRequest(
          base({
            messages: [
              { role: 'user', content: 'hi' },
              {
                role: 'system',
                content: [
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A' } },
                ],
              },
            ],
          }),
          target,
        ),
      (err: unknown) =>
        err instanceof UnsupportedRequest &&
        err.message === 'messages.1.content.0: a system message takes text blocks only',
    );
  });

  it('turns base64 images into data URLs beside the text', function () {
    const out = toOpenAiRequest(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is it?' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
        ],
      }),
      target,
    );
    assert.deepEqual(out.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is it?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ]);
  });

  it('maps tool_use to assistant tool_calls and tool_result to tool messages before the user text', function () {
    const out = toOpenAiRequest(
      base({
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'looking' },
              { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [{ type: 'text', text: 'rain' }],
              },
              { type: 'text', text: 'thanks' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_2', content: 'boom', is_error: true },
            ],
          },
        ],
      }),
      target,
    );
    assert.deepEqual(out.messages.slice(1), [
      {
        role: 'assistant',
        content: 'looking',
        tool_calls: [
          {
            id: 'toolu_1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'rain' },
      { role: 'user', content: 'thanks' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: boom' },
    ]);
  });

  for (const [choice, expected] of [
    [{ type: 'auto' }, 'auto'],
    [{ type: 'any' }, 'required'],
    [{ type: 'none' }, 'none'],
    [
      { type: 'tool', name: 'weather' },
      { type: 'function', function: { name: 'weather' } },
    ],
  ] as const) {
    it(`maps tool_choice ${choice.type} to ${JSON.stringify(expected)} and tools to functions`, function () {
      const out = toOpenAiRequest(
        base({
          tools: [{ name: 'weather', description: 'w', input_schema: { type: 'object' } }],
          tool_choice: choice,
        }),
        target,
      );
      assert.deepEqual(out.tools, [
        {
          type: 'function',
          function: { name: 'weather', description: 'w', parameters: { type: 'object' } },
        },
      ]);
      assert.deepEqual(out.tool_choice, expected);
    });
  }

  it('passes stop_sequences, temperature, top_p, top_k, metadata.user_id and streaming with usage', function () {
    const out = toOpenAiRequest(
      base({
        stop_sequences: ['END'],
        temperature: 0.2,
        top_p: 0.9,
        top_k: 5,
        metadata: { user_id: 'u-1' },
        stream: true,
        tool_choice: { type: 'auto', disable_parallel_tool_use: true },
        tools: [{ name: 't', input_schema: {} }],
      }),
      target,
    );
    assert.deepEqual(
      { ...out, messages: undefined, tools: undefined },
      {
        model: 'backend/m',
        max_tokens: 100,
        messages: undefined,
        tools: undefined,
        stop: ['END'],
        temperature: 0.2,
        top_p: 0.9,
        top_k: 5,
        user: 'u-1',
        stream: true,
        stream_options: { include_usage: true },
        tool_choice: 'auto',
        parallel_tool_calls: false,
      },
    );
  });

  it('refuses an image by URL (the backend would fetch it from inside the network)', function () {
    assert.throws(
      () =>
        toOpenAiRequest(
          base({
            messages: [
              {
                role: 'user',
                content: [{ type: 'image', source: { type: 'url', url: 'http://10.0.0.1/x.png' } }],
              },
            ],
          }),
          target,
        ),
      /messages\.0\.content\.0\.source: only base64 images/,
    );
  });

  it('refuses server tools and tool_use blocks in a user message', function () {
    assert.throws(
      () =>
        toOpenAiRequest(
          base({
            tools: [
              { name: 'web_search', type: 'web_search_20250305' as 'custom', input_schema: {} },
            ],
          }),
          target,
        ),
      UnsupportedRequest,
    );
    assert.throws(
      () =>
        toOpenAiRequest(
          base({
            messages: [
              { role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'y', input: {} }] },
            ],
          }),
          target,
        ),
      /messages\.0\.content\.0/,
    );
  });
});
