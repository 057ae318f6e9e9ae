import assert from 'node:assert/strict';
import { parseEvents } from './sse';

describe('parseEvents (the portal’s server-sent events reader)', function () {
  it('answers complete events with their names and keeps a partial one for the next chunk', function () {
    const { events, rest } = parseEvents(
      'event: line\ndata: {"message":"a"}\n\n: keep-alive\n\nevent: end\r\ndata: {"status"',
    );
    assert.deepEqual(events, [{ event: 'line', data: '{"message":"a"}' }]);
    assert.equal(rest, 'event: end\ndata: {"status"');
    assert.deepEqual(parseEvents(`${rest}:"completed"}\n\n`).events, [
      { event: 'end', data: '{"status":"completed"}' },
    ]);
  });

  it('joins multi-line data and names an unnamed event "message"', function () {
    assert.deepEqual(parseEvents('data: one\ndata:two\n\n').events, [
      { event: 'message', data: 'one\ntwo' },
    ]);
  });
});
