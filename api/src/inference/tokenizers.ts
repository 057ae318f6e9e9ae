import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import type { Logger } from '@aiplane/lib';
import type { CountText } from './count-tokens.js';
import { PathEscapeError, storeFile } from './downloads/download-paths.js';
import type { StoreFile } from './model-catalogue.js';

/** Tokenizers kept loaded at once (a large vocabulary is tens of MB in memory). */
export const TOKENIZER_CACHE_ENTRIES = 8;
/** The largest tokenizer.json read (the largest common ones are about 35 MB). */
export const TOKENIZER_MAX_FILE_BYTES = 64 * 2 ** 20;
/** Distinct problems remembered so that each is logged once. */
const WARNED_LIMIT = 1000;

export interface TokenizersOptions {
  /** The model store's root directory (AIPLANE_MODEL_STORE_DIR). */
  root: string;
  logger: Logger;
  maxEntries?: number;
  maxFileBytes?: number;
}

/**
 * What is used of @huggingface/tokenizers' Tokenizer. Its published declarations import their
 * parts without file extensions, which NodeNext resolution cannot follow, so the class is
 * typed here.
 */
interface Tokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
}
const Tokenizer = HfTokenizer as unknown as new (tokenizer: object, config: object) => Tokenizer;

/** Why a tokenizer file cannot be used; logged once per file and reason. */
class Unusable extends Error {
  override readonly name = 'Unusable';
}

/**
 * The catalogue's tokenizer.json files, loaded with @huggingface/tokenizers (pure JS: BERT
 * WordPiece, BPE, Unigram) and kept in a bounded LRU keyed by the real path, mtime and size,
 * so a file replaced in the store is read again (docs/adr/0024). A file that is missing, leaves
 * the store, is too large or is not a tokenizer gives undefined (the caller estimates); the
 * problem is logged once, naming the file, never any request text. A file that failed to load
 * is remembered as failed until it changes.
 */
export class Tokenizers {
  private readonly cache = new Map<string, Promise<CountText | undefined>>();
  private readonly warned = new Set<string>();
  private readonly maxEntries: number;
  private readonly maxFileBytes: number;

  constructor(private readonly opts: TokenizersOptions) {
    this.maxEntries = opts.maxEntries ?? TOKENIZER_CACHE_ENTRIES;
    this.maxFileBytes = opts.maxFileBytes ?? TOKENIZER_MAX_FILE_BYTES;
  }

  /** The counter of `file`'s tokenizer, or undefined when it cannot be used. */
  async counter(file: StoreFile): Promise<CountText | undefined> {
    const name = file.directory === '' ? file.path : `${file.directory}/${file.path}`;
    let real: string;
    let key: string;
    try {
      real = await storeFile(join(this.opts.root, file.directory), file.path);
      const info = await stat(real);
      if (!info.isFile()) throw new Unusable('not a regular file');
      if (info.size > this.maxFileBytes) {
        throw new Unusable(`larger than ${this.maxFileBytes} bytes`);
      }
      key = `${real}\0${info.mtimeMs}\0${info.size}`;
    } catch (err) {
      this.warnOnce(name, reasonOf(err));
      return undefined;
    }
    let loaded = this.cache.get(key);
    if (loaded) {
      this.cache.delete(key); // most recently used last
    } else {
      loaded = this.load(real).then(
        (count) => {
          this.forget(name);
          return count;
        },
        (err: unknown) => {
          this.warnOnce(name, reasonOf(err));
          return undefined;
        },
      );
    }
    this.cache.set(key, loaded);
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= this.maxEntries) break;
      this.cache.delete(oldest);
    }
    return loaded;
  }

  private async load(real: string): Promise<CountText> {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(real, 'utf8'));
    } catch (err) {
      if ((err as { code?: string }).code !== undefined) throw err;
      throw new Unusable('not valid JSON');
    }
    if (typeof json !== 'object' || json === null || !('model' in json)) {
      throw new Unusable('not a tokenizer.json (no "model")');
    }
    let tokenizer: Tokenizer;
    try {
      // tokenizer_config.json only shapes decoding and chat templates: not needed to count.
      tokenizer = new Tokenizer(json, {});
      tokenizer.encode('a', { add_special_tokens: false });
    } catch (err) {
      throw new Unusable(`not a tokenizer @huggingface/tokenizers reads: ${reasonOf(err)}`);
    }
    return (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  }

  private warnOnce(file: string, reason: string): void {
    const key = `${file}\0${reason}`;
    if (this.warned.has(key)) return;
    if (this.warned.size >= WARNED_LIMIT) this.warned.clear();
    this.warned.add(key);
    this.opts.logger.warn(
      { tokenizer: file, reason },
      'count_tokens: the model’s tokenizer cannot be used; answering the estimate',
    );
  }

  /** A file that loaded is logged again if it breaks later. */
  private forget(file: string): void {
    for (const key of this.warned) if (key.startsWith(`${file}\0`)) this.warned.delete(key);
  }
}

function reasonOf(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === 'ENOENT') return 'missing';
  if (e.code === 'EACCES') return 'not readable';
  if (err instanceof PathEscapeError || err instanceof Unusable) return e.message ?? 'unusable';
  return (e.code ?? e.message ?? String(err)).slice(0, 200);
}
