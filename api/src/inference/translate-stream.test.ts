import assert from 'node:assert/strict';
import { formatEvent, StreamTranslator } from './translate-stream.js';

const run = (chunks: object[], stopSequences?: string[]) => {
  const t = new StreamTranslator({ model: 'm', id: 'msg_1', inputTokens: 3, stopSequences });
  return [...t.start(), ...chunks.flatMap((c) => t.chunk(c)), ...t.end()];
};
const delta = (d: object, finish: string | null = null, extra = {}) => ({
  choices: [{ delta: d, finish_reason: finish, ...extra }],
});

describe('StreamTranslator: an OpenAI stream as the vendor’s events', function () {
  it('sends message_start, content_block_start, ping, text deltas, content_block_stop, message_delta, message_stop', function () {
    const events = run([
      delta({ role: 'assistant', content: '' }),
      delta({ content: 'Hel' }),
      delta({ content: 'lo' }),
      delta({}, 'stop'),
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 2 } },
    ]);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        'message_start',
        'content_block_start',
        'ping',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.deepEqual(events[3]?.data, {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Hel' },
    });
    assert.deepEqual(events[6]?.data, {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 9, output_tokens: 2 },
    });
    const start = events[0]?.data as unknown as {
      message: { id: string; usage: { input_tokens: number } };
    };
    assert.equal(start.message.id, 'msg_1');
    assert.equal(start.message.usage.input_tokens, 3);
  });

  it('opens a tool_use block after the text, streams its arguments as input_json_delta, ends with tool_use', function () {
    const events = run([
      delta({ content: 'calling' }),
      delta({
        tool_calls: [{ index: 0, id: 'call_1', function: { name: 'weather', arguments: '' } }],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      delta({}, 'tool_calls'),
    ]);
    const starts = events.filter((e) => e.event === 'content_block_start');
    assert.equal(starts.length, 2);
    const tool = starts[1]?.data as unknown as {
      index: number;
      content_block: { type: string; id: string; name: string };
    };
    assert.equal(tool.index, 1);
    assert.equal(tool.content_block.type, 'tool_use');
    assert.equal(tool.content_block.name, 'weather');
    assert.match(tool.content_block.id, /^toolu_/);
    const json = events
      .filter(
        (e) =>
          (e.data as unknown as { delta?: { type?: string } }).delta?.type === 'input_json_delta',
      )
      .map((e) => (e.data as unknown as { delta: { partial_json: string } }).delta.partial_json)
      .join('');
    assert.equal(json, '{"city":"Oslo"}');
    assert.equal(events.filter((e) => e.event === 'content_block_stop').length, 2);
    const md = events.find((e) => e.event === 'message_delta')?.data as unknown as {
      delta: { stop_reason: string };
    };
    assert.equal(md.delta.stop_reason, 'tool_use');
  });

  it('ends with stop_sequence when the backend names the matched stop string, max_tokens on length', function () {
    const stop = run([delta({ content: 'a' }), delta({}, 'stop', { stop_reason: 'END' })], ['END']);
    assert.deepEqual(
      (stop.find((e) => e.event === 'message_delta')?.data as unknown as { delta: unknown }).delta,
      {
        stop_reason: 'stop_sequence',
        stop_sequence: 'END',
      },
    );
    const length = run([delta({ content: 'a' }), delta({}, 'length')]);
    assert.equal(
      (
        length.find((e) => e.event === 'message_delta')?.data as unknown as {
          delta: { stop_reason: string };
        }
      ).delta.stop_reason,
      'max_tokens',
    );
  });

  it('writes each event as an event: line and a data: line', function () {
    assert.equal(
      formatEvent({ event: 'ping', data: { type: 'ping' } }),
      'event: ping\ndata: {"type":"ping"}\n\n',
    );
  });
});

describe('StreamTranslator: an agent’s run over several backend streams (docs/adr/0029)', function () {
  const call = (index: number, id: string | undefined, name: string | undefined, args: string) =>
    delta({
      tool_calls: [
        { index, ...(id ? { id } : {}), function: { ...(name ? { name } : {}), arguments: args } },
      ],
    });

  it('collects calls of hidden tools without showing them, and shows the client’s own', function () {
    const t = new StreamTranslator({
      model: 'm',
      inputTokens: 3,
      hidden: (name) => name === 'add',
    });
    const shown = [
      ...t.start(),
      ...t.chunk(delta({ content: 'Let me add. ' })),
      ...t.chunk(call(0, 'c1', 'add', '{"a":')),
      ...t.chunk(call(0, undefined, undefined, '2}')),
      ...t.chunk(delta({}, 'tool_calls')),
      ...t.chunk({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 4 } }),
    ];
    const { events, step } = t.endStep();
    assert.deepEqual(step, {
      hidden: [{ id: 'c1', name: 'add', arguments: '{"a":2}' }],
      calledClientTools: false,
      text: 'Let me add. ',
    });
    // Only the text block was shown, and it is closed.
    assert.deepEqual(
      [...shown, ...events].map((e) => e.event),
      ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_stop'],
    );
    t.nextStep();
    const next = [
      ...t.chunk(delta({ content: 'It is 2.' })),
      ...t.chunk(delta({}, 'stop')),
      ...t.chunk({ choices: [], usage: { prompt_tokens: 20, completion_tokens: 3 } }),
      ...t.end(),
    ];
    assert.deepEqual(
      next.map((e) => [e.event, e.data.index]),
      [
        ['content_block_start', 1],
        ['content_block_delta', 1],
        ['content_block_stop', 1],
        ['message_delta', undefined],
        ['message_stop', undefined],
      ],
    );
    // Usage is every step's, and the stop reason the last step's.
    assert.deepEqual(next[3]?.data, {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 30, output_tokens: 7 },
    });
  });

  it('reports a client call beside a hidden one, and ends with pause_turn when told', function () {
    const t = new StreamTranslator({ model: 'm', inputTokens: 3, hidden: (n) => n === 'add' });
    t.start();
    t.chunk(call(0, 'c1', 'add', '{}'));
    const clientCall = t.chunk(call(1, 'c2', 'clock', '{}'));
    assert.equal(clientCall[0]?.event, 'content_block_start');
    assert.equal((clientCall[0]?.data.content_block as { name: string }).name, 'clock');
    assert.equal(clientCall[0]?.data.index, 0);
    const { step } = t.endStep();
    assert.equal(step.calledClientTools, true);
    assert.equal(step.hidden.length, 1);
    const end = t.end('pause_turn');
    assert.deepEqual((end[0]?.data as unknown as { delta: unknown }).delta, {
      stop_reason: 'pause_turn',
      stop_sequence: null,
    });
  });
});
