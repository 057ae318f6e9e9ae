import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@aiplane/lib';
import { Tokenizers } from './tokenizers.js';

/** A BERT WordPiece tokenizer.json (lower-casing, `##` continuations), as all-MiniLM's. */
function wordPiece(vocab: string[]): object {
  return {
    version: '1.0',
    added_tokens: [0, 1, 2].map((id) => ({
      id,
      content: ['[UNK]', '[CLS]', '[SEP]'][id],
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(['[UNK]', '[CLS]', '[SEP]', ...vocab].map((t, i) => [t, i])),
    },
  };
}

/** A byte-level BPE tokenizer.json (GPT-2 style: `Ġ` marks a leading space). */
function byteLevelBpe(): object {
  const vocab = ['h', 'e', 'l', 'o', 'Ġ', 'w', 'r', 'd', 'he', 'll', 'hell', 'hello', 'Ġw'];
  return {
    version: '1.0',
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: {
      type: 'ByteLevel',
      add_prefix_space: false,
      trim_offsets: true,
      use_regex: true,
    },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab: Object.fromEntries([...vocab, 'or', 'Ġwor', 'Ġworl', 'Ġworld'].map((t, i) => [t, i])),
      merges: ['h e', 'l l', 'he ll', 'hell o', 'Ġ w', 'o r', 'Ġw or', 'Ġwor l', 'Ġworl d'],
    },
  };
}

describe('Tokenizers: the catalogue’s tokenizer.json files', function () {
  let root: string;
  let lines: { tokenizer?: string; reason?: string; msg: string }[];
  let tokenizers: Tokenizers;
  const write = async (path: string, content: unknown) => {
    const file = join(root, path);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };

  beforeEach(async function () {
    root = await mkdtemp(join(tmpdir(), 'tokenizers-'));
    lines = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
        done();
      },
    });
    tokenizers = new Tokenizers({ root, logger: createLogger({ destination }), maxEntries: 2 });
  });
  afterEach(async function () {
    await rm(root, { recursive: true, force: true });
  });

  it('counts with a BERT WordPiece tokenizer.json, without special tokens', async function () {
    await write(
      'org-1/bert/tokenizer.json',
      wordPiece(['hello', 'world', 'token', '##ization', '!']),
    );
    const count = await tokenizers.counter({ directory: 'org-1', path: 'bert/tokenizer.json' });
    assert.ok(count);
    assert.equal(count('Hello World!'), 3);
    assert.equal(count('Tokenization'), 2); // token ##ization
    assert.equal(count('unheard'), 1); // [UNK]
    assert.equal(count(''), 0);
  });

  it('counts with a byte-level BPE tokenizer.json, applying its merges', async function () {
    await write('gpt/tokenizer.json', byteLevelBpe());
    const count = await tokenizers.counter({ directory: '', path: 'gpt/tokenizer.json' });
    assert.ok(count);
    assert.equal(count('hello world'), 2); // hello Ġworld
    assert.equal(count('hold'), 4); // h o l d: no merge applies
  });

  it('keeps a loaded tokenizer and reads the file again once it changed', async function () {
    const file = await write('m/tokenizer.json', wordPiece(['hello']));
    const first = await tokenizers.counter({ directory: '', path: 'm/tokenizer.json' });
    assert.equal(await tokenizers.counter({ directory: '', path: 'm/tokenizer.json' }), first);
    assert.equal(first?.('hello world'), 2); // world is [UNK]
    await write('m/tokenizer.json', wordPiece(['hello', 'wor', '##ld']));
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    const second = await tokenizers.counter({ directory: '', path: 'm/tokenizer.json' });
    assert.notEqual(second, first);
    assert.equal(second?.('hello world'), 3); // hello wor ##ld
  });

  it('keeps at most maxEntries tokenizers, dropping the least recently used', async function () {
    for (const m of ['a', 'b', 'c']) await write(`${m}/tokenizer.json`, wordPiece([m]));
    const at = (m: string) => tokenizers.counter({ directory: '', path: `${m}/tokenizer.json` });
    const a = await at('a');
    const b = await at('b');
    assert.equal(await at('a'), a); // a used last
    const c = await at('c'); // b goes
    assert.equal(await at('a'), a);
    assert.equal(await at('c'), c);
    assert.notEqual(await at('b'), b, 'b was kept past the bound');
  });

  it('answers undefined for a missing, invalid or foreign file and logs each problem once, naming the file', async function () {
    await write('bad/tokenizer.json', '{"model": ');
    await write('odd/tokenizer.json', { model: { type: 'NoSuchModel' } });
    await write('not/tokenizer.json', { hello: 'world' });
    const outside = await mkdtemp(join(tmpdir(), 'outside-'));
    await writeFile(join(outside, 'tokenizer.json'), JSON.stringify(wordPiece(['x'])));
    await mkdir(join(root, 'org-1'), { recursive: true });
    await symlink(outside, join(root, 'org-1', 'escape'));
    // Another organization's file, reached from org-1's part of the store through a link.
    await write('org-2/m/tokenizer.json', wordPiece(['x']));
    await symlink(join(root, 'org-2', 'm'), join(root, 'org-1', 'theirs'));
    const cases: [string, string, RegExp][] = [
      ['', 'gone/tokenizer.json', /^missing$/],
      ['', 'bad/tokenizer.json', /not valid JSON/],
      ['', 'odd/tokenizer.json', /not a tokenizer @huggingface\/tokenizers reads/],
      ['', 'not/tokenizer.json', /no "model"/],
      ['org-1', 'escape/tokenizer.json', /leaves the model store/],
      ['org-1', 'theirs/tokenizer.json', /leaves the model store/],
      ['', '../etc/passwd', /must not contain \. or \.\./],
    ];
    try {
      for (const [directory, path, reason] of cases) {
        for (let i = 0; i < 2; i++) {
          assert.equal(await tokenizers.counter({ directory, path }), undefined, path);
        }
        const logged = lines.filter(
          (l) => l.tokenizer === (directory ? `${directory}/${path}` : path),
        );
        assert.equal(logged.length, 1, `${path}: ${JSON.stringify(lines)}`);
        assert.match(logged[0]?.reason ?? '', reason);
      }
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
