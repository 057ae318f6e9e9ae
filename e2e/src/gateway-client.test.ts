import assert from 'node:assert/strict';
import { toolText } from './gateway-client.js';

describe('text of a tool result', function () {
  it('joins the text parts and skips the others', function () {
    assert.equal(
      toolText({
        content: [
          { type: 'text', text: '4' },
          { type: 'image', data: 'x', mimeType: 'image/png' },
          { type: 'text', text: '2' },
        ],
      }),
      '42',
    );
  });

  it('is empty for a result without text', function () {
    assert.equal(toolText({ content: [] }), '');
    assert.equal(toolText({}), '');
  });

  it('throws on an error result, with its text', function () {
    assert.throws(
      () => toolText({ isError: true, content: [{ type: 'text', text: 'Tool add not found' }] }),
      /the tool answered an error: Tool add not found/,
    );
  });
});
