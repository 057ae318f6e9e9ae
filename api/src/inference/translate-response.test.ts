import assert from 'node:assert/strict';
import { stopReasonOf, toAnthropicMessage, toolInput, vendorId } from './translate-response.js';

describe('toAnthropicMessage: an OpenAI completion as the vendor’s message', function () {
  it('answers text with end_turn, the requested model, a msg_ id and the usage', function () {
    const m = toAnthropicMessage(
      {
        choices: [{ message: { content: 'hello' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 7, completion_tokens: 1 },
      },
      { model: 'anthropic-model-m' },
    );
    assert.match(m.id, /^msg_01[A-Za-z0-9]{24}$/);
    assert.deepEqual(
      { ...m, id: undefined },
      {
        id: undefined,
        type: 'message',
        role: 'assistant',
        model: 'anthropic-model-m',
        content: [{ type: 'text', text: 'hello' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: 7,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    );
  });

  it('answers tool calls as tool_use blocks with toolu_ ids and parsed input, stop_reason tool_use', function () {
    const m = toAnthropicMessage(
      {
        choices: [
          {
            message: {
              content: null,
              tool_calls: [
                { id: 'call_x', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
      { model: 'm' },
    );
    assert.equal(m.stop_reason, 'tool_use');
    assert.equal(m.content.length, 1);
    const block = m.content[0] as { type: string; id: string; name: string; input: unknown };
    assert.equal(block.type, 'tool_use');
    assert.match(block.id, /^toolu_01/);
    assert.deepEqual([block.name, block.input], ['weather', { city: 'Oslo' }]);
  });

  for (const [finish, matched, expected] of [
    ['stop', null, ['end_turn', null]],
    ['length', null, ['max_tokens', null]],
    ['stop', 'END', ['stop_sequence', 'END']],
    ['stop', 'OTHER', ['end_turn', null]],
    ['tool_calls', null, ['tool_use', null]],
    [null, null, ['end_turn', null]],
  ] as const) {
    it(`maps finish ${String(finish)} (matched ${String(matched)}) to ${expected[0]}`, function () {
      const r = stopReasonOf(finish, matched, ['END'], false);
      assert.deepEqual([r.stop_reason, r.stop_sequence], expected);
    });
  }

  it('reads tool arguments that are not a JSON object as {}', function () {
    assert.deepEqual(toolInput('not json'), {});
    assert.deepEqual(toolInput('[1]'), {});
    assert.deepEqual(toolInput(''), {});
    assert.deepEqual(toolInput('{"a":1}'), { a: 1 });
  });
});

describe('vendorId', function () {
  it('gives well-formed ids that never repeat, across refills of its random pool', function () {
    const ids = Array.from({ length: 1000 }, (_, i) => vendorId(i % 2 ? 'req' : 'toolu'));
    for (const id of ids) assert.match(id, /^(req|toolu)_01[A-Za-z0-9]{24}$/);
    assert.equal(new Set(ids.map((id) => id.slice(id.indexOf('_')))).size, ids.length);
  });
});
