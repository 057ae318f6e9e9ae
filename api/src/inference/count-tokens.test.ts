import assert from 'node:assert/strict';
import { estimateInputTokens, IMAGE_TOKENS } from './count-tokens.js';

describe('estimateInputTokens: the documented estimate', function () {
  it('counts a token per four characters, four per message, 1600 per image', function () {
    assert.equal(estimateInputTokens({ messages: [{ role: 'user', content: 'abcdefgh' }] }), 4 + 2);
    assert.equal(
      estimateInputTokens({
        system: 'abcd',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'abcd' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
        ],
      }),
      4 + IMAGE_TOKENS + 2,
    );
  });

  it('grows with tool definitions and an agent’s instructions', function () {
    const plain = { messages: [{ role: 'user' as const, content: 'hi' }] };
    const tools = { ...plain, tools: [{ name: 'weather', input_schema: { type: 'object' } }] };
    assert.ok(estimateInputTokens(tools) > estimateInputTokens(plain));
    assert.ok(estimateInputTokens(plain, 'x'.repeat(400)) >= estimateInputTokens(plain) + 100);
  });
});
