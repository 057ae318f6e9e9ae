// The hostile-input corpus (issue 22): its entry shapes, how a file is read, and the small
// declared recipes that stand for inputs too big or too binary to keep as text in a JSONL line.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { makePng } from '../../api/src/platform/logo-samples.js';

/** Bytes of a request body or a frame. */
export type Payload =
  { json: unknown } | { text: string } | { base64: string } | { recipe: Recipe };

/** An input made at replay time from a short declaration. */
export type Recipe =
  /** `prefix` + `open`×depth + `inner` + `close`×depth + `suffix` (deep nesting). */
  | {
      kind: 'nest';
      open: string;
      close: string;
      depth: number;
      inner: string;
      prefix?: string;
      suffix?: string;
    }
  /** `prefix` + `text`×times + `suffix` (oversized values). */
  | { kind: 'repeat'; text: string; times: number; prefix?: string; suffix?: string }
  /** A valid PNG whose header claims width×height, with `append` (base64) after IEND. */
  | { kind: 'png'; width: number; height: number; append?: string }
  /** `of`'s bytes, gzip-compressed (a body sent with Content-Encoding: gzip). */
  | { kind: 'gzip'; of: Payload }
  /** `bytes` zero bytes (binary WebSocket frames). */
  | { kind: 'zeros'; bytes: number };

/** What the spec says must happen; every entry also must not answer 5xx or crash anything. */
export interface Expect {
  /** The status (or one of them). */
  status?: number | number[];
  /** The platform error code (`error.code`, or `error.data.code` for JSON-RPC); null: none. */
  code?: string | null;
  /** Refused with some 4xx, where the spec names no status. */
  refused?: boolean;
  /** Strings that must not appear in the answer (e.g. a file's contents after traversal). */
  absent?: string[];
  /** Logo uploads: when accepted, the served logo must carry no script or external reference. */
  servedSafe?: boolean;
}

/** Who sends a request: a dev user's JWT, the admin's API key, or nobody. */
export type Sender = 'admin' | 'member' | 'apikey' | 'none';

/** What an MCP client sends on every POST to the gateway. */
export const GATEWAY_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** An HTTP request to the API (`target: 'api'`) or the gateway's MCP endpoint of the test server. */
export interface HttpEntry {
  id: string;
  note: string;
  kind: 'http';
  target?: 'api' | 'gateway';
  method: string;
  /** For the gateway: below `/servers/<id>/mcp` (usually empty); `{server}` is the server's id. */
  path: string;
  as?: Sender;
  /** X-Aiplane-Organization: the test organization (default), none, or this exact value. */
  org?: 'default' | 'none' | { value: string };
  headers?: Record<string, string>;
  body?: Payload;
  expect: Expect;
}

/**
 * A request written byte for byte over a socket (what fetch refuses to send): `{jwt}`, `{key}`,
 * `{org}` and `{host}` are replaced; `\r\n` are the line ends.
 */
export interface RawEntry {
  id: string;
  note: string;
  kind: 'raw';
  raw: string;
  /** Bytes appended after `raw` (a body that is not text). */
  tail?: Payload;
  expect: Expect;
}

/** A session of the speech socket: the query (`{token}` replaced), then the frames in order. */
export interface WsEntry {
  id: string;
  note: string;
  kind: 'ws';
  query: string;
  frames: (
    | { text: string }
    /** A text frame of these bytes, unchecked (invalid UTF-8). */
    | { textBytes: Payload }
    | { binary: Payload }
    /** Wait for the server's `session_ready` frame. */
    | { awaitReady: true }
  )[];
  /** The error frame's code and the close code; or `status`: the upgrade is refused. */
  expect: { code?: string; close?: number; status?: number };
}

export type Entry = HttpEntry | RawEntry | WsEntry;

export interface Group {
  name: string;
  entries: Entry[];
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** Every `*.jsonl` file of test/hostile, one group each, in name order. */
export function loadCorpus(dir = HERE): Group[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.jsonl$/, ''),
      entries: readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => expand(JSON.parse(line)) as Entry),
    }));
}

/** `⟪N×text⟫` inside any string of an entry stands for `text` repeated N times. */
const REPEAT = /⟪(\d+)×([^⟫]*)⟫/g;

/** The entry with every `⟪N×text⟫` of its strings written out. */
export function expand(value: unknown): unknown {
  if (typeof value === 'string')
    return value.replace(REPEAT, (_, n: string, t: string) => t.repeat(Number(n)));
  if (Array.isArray(value)) return value.map(expand);
  if (value !== null && typeof value === 'object') {
    // JSON.parse made `__proto__` an own key: defineProperty keeps it one (no prototype change).
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, {
        value: expand(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** The bytes a payload stands for. */
export function bytesOf(p: Payload): Buffer {
  if ('json' in p) return Buffer.from(JSON.stringify(p.json));
  if ('text' in p) return Buffer.from(p.text);
  if ('base64' in p) return Buffer.from(p.base64, 'base64');
  return made(p.recipe);
}

function made(r: Recipe): Buffer {
  switch (r.kind) {
    case 'nest':
      return Buffer.from(
        `${r.prefix ?? ''}${r.open.repeat(r.depth)}${r.inner}${r.close.repeat(r.depth)}${r.suffix ?? ''}`,
      );
    case 'repeat':
      return Buffer.from(`${r.prefix ?? ''}${r.text.repeat(r.times)}${r.suffix ?? ''}`);
    case 'png': {
      const png = makePng(r.width, r.height);
      return r.append ? Buffer.concat([png, Buffer.from(r.append, 'base64')]) : png;
    }
    case 'gzip':
      return gzipSync(bytesOf(r.of));
    case 'zeros':
      return Buffer.alloc(r.bytes);
  }
}
