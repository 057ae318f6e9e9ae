import assert from 'node:assert/strict';
import {
  type CountText,
  estimateInputTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  pieces,
  TOKENIZER_CHUNK_CHARS,
  TOKENIZER_MAX_CHARS,
  tokenizeInputTokens,
} from './count-tokens.js';

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

describe('tokenizeInputTokens: counted with the model’s tokenizer', function () {
  /** A stand-in tokenizer: one token per whitespace-separated word. */
  const words: CountText = (text) => text.split(/\s+/).filter((w) => w !== '').length;

  it('counts every text the model reads, each on its own, plus four per message and 1600 per image', async function () {
    const counted: string[] = [];
    const tokens = await tokenizeInputTokens(
      {
        system: [{ type: 'text', text: 'be brief' }],
        messages: [
          { role: 'user', content: 'call the weather tool' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [{ type: 'text', text: 'cold and dark' }],
              },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
        ],
        tools: [
          { name: 'weather', description: 'the weather now', input_schema: { type: 'object' } },
        ],
      },
      'you are the agent',
      (text) => {
        counted.push(text);
        return words(text);
      },
    );
    assert.deepEqual(counted, [
      'you are the agent',
      'be brief',
      'call the weather tool',
      'weather',
      '{"city":"Oslo"}',
      'cold and dark',
      'weather',
      'the weather now',
      '{"type":"object"}',
    ]);
    assert.equal(
      tokens,
      4 + 2 + 4 + 1 + 1 + 3 + 1 + 3 + 1 + 3 * MESSAGE_OVERHEAD_TOKENS + IMAGE_TOKENS,
    );
  });

  it('gives the estimate for a request over TOKENIZER_MAX_CHARS, and at least one token', async function () {
    const huge = {
      messages: [{ role: 'user' as const, content: 'a '.repeat(TOKENIZER_MAX_CHARS) }],
    };
    assert.equal(await tokenizeInputTokens(huge, '', words), estimateInputTokens(huge));
    assert.equal(await tokenizeInputTokens({ messages: [] }, '', words), 1);
  });

  it('counts a long text in pieces to the same total', async function () {
    const text = 'lorem  ipsum\tdolor sit amet '.repeat(5000);
    assert.ok(text.length > 3 * TOKENIZER_CHUNK_CHARS);
    const tokens = await tokenizeInputTokens(
      { messages: [{ role: 'user', content: text }] },
      '',
      words,
    );
    assert.equal(tokens, words(text) + MESSAGE_OVERHEAD_TOKENS);
  });
});

describe('pieces: long texts cut where a whitespace run starts', function () {
  const cases: [string, string, number, string[]][] = [
    ['short text stays whole', 'ab cd', 10, ['ab cd']],
    ['cut before the run', 'abc   defg hij', 8, ['abc', '   defg', ' hij']],
    ['no whitespace: cut at max', 'abcdefghij', 4, ['abcd', 'efgh', 'ij']],
    ['never inside a surrogate pair', 'ab😀cd', 3, ['ab', '😀c', 'd']],
  ];
  for (const [name, text, max, want] of cases) {
    it(name, function () {
      assert.deepEqual(pieces(text, max), want);
      assert.equal(pieces(text, max).join(''), text);
    });
  }
});
