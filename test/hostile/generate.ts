// Writes the corpus's JSONL files (test/hostile/*.jsonl) from the tables below: the files are
// the data the replay reads (test/integration/hostile.test.ts); this script is how they were
// authored. Run: node --import tsx test/hostile/generate.ts
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Entry,
  type Expect,
  GATEWAY_HEADERS,
  type HttpEntry,
  type Payload,
  type RawEntry,
  type WsEntry,
} from './corpus.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const b64 = (s: string | Buffer) =>
  (typeof s === 'string' ? Buffer.from(s, 'latin1') : s).toString('base64');
/** `text` repeated `n` times, written short (expanded when the corpus is read: corpus.ts). */
const rep = (text: string, n: number) => `⟪${n}×${text}⟫`;
const slug = (s: string) =>
  s
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();

/** 422 with no code: the platform's request validation failure (spec: tenants-and-mcp, Errors). */
const INVALID: Expect = { status: 422, code: null };
const TOO_LARGE: Expect = { status: 413, code: 'request_too_large' };

// ---------------------------------------------------------------------------------------------
// JSON bodies: each hostile body against each JSON route, with what that route answers for a
// body it cannot take.
const ROUTES: { name: string; method: string; path: string; invalid: Expect }[] = [
  { name: 'api-keys', method: 'POST', path: '/v1/api-keys', invalid: INVALID },
  { name: 'mcp-servers', method: 'POST', path: '/v1/mcp/servers', invalid: INVALID },
  { name: 'agents', method: 'POST', path: '/v1/agents', invalid: INVALID },
  { name: 'tenants', method: 'POST', path: '/v1/admin/tenants', invalid: INVALID },
  { name: 'search', method: 'POST', path: '/v1/collections/hostile/search', invalid: INVALID },
  // spec core-api Errors: reranker, empty or invalid query or document list.
  {
    name: 'rerank',
    method: 'POST',
    path: '/v1/rerank',
    invalid: { status: 400, code: 'rerank_bad_request' },
  },
  { name: 'folders', method: 'POST', path: '/v1/folders', invalid: INVALID },
  // The compatibility API answers in its vendor's error shape (no platform code).
  { name: 'messages', method: 'POST', path: '/anthropic/v1/messages', invalid: { status: 400 } },
];
/** The vendor API's own refusals of a body: 400 invalid_request_error, 413, 415. */
const VENDOR_REFUSAL: Expect = { status: [400, 413, 415] };

const nest = (
  open: string,
  close: string,
  depth: number,
  inner = '1',
  prefix = '',
  suffix = '',
): Payload => ({
  recipe: { kind: 'nest', open, close, depth, inner, prefix, suffix },
});

/** Bodies every route must refuse as it refuses any invalid body. */
const BAD_BODIES: {
  name: string;
  body: Payload;
  expect?: Expect;
  headers?: Record<string, string>;
}[] = [
  { name: 'an array', body: { text: '[]' } },
  { name: 'an array of objects', body: { text: '[{"name":"x"}]' } },
  { name: 'a string', body: { text: '"hello"' } },
  { name: 'null', body: { text: 'null' } },
  { name: 'a number', body: { text: '42' } },
  { name: 'true', body: { text: 'true' } },
  { name: 'an empty object', body: { text: '{}' } },
  {
    name: 'every field a number',
    body: {
      json: {
        name: 1,
        query: 1,
        runtime: 1,
        slug: 1,
        model: 1,
        documents: 1,
        display_name: 1,
        parent_id: 1,
      },
    },
  },
  {
    name: 'every field an object',
    body: {
      json: { name: {}, query: {}, runtime: {}, slug: {}, model: {}, documents: {}, messages: {} },
    },
  },
  {
    name: 'every field null',
    body: {
      json: {
        name: null,
        query: null,
        runtime: null,
        slug: null,
        model: null,
        documents: null,
        messages: null,
      },
    },
  },
  { name: 'an unknown field only', body: { json: { zzz_unknown: true } } },
  { name: 'not JSON', body: { text: '{name: hello}' } },
  { name: 'truncated JSON', body: { text: '{"name": "a' } },
  { name: 'trailing garbage', body: { text: '{"name":"a"} x' } },
  { name: 'a NaN literal', body: { text: '{"name": NaN}' } },
  { name: 'a comment', body: { text: '{"name": "a" /* c */}' } },
  { name: 'objects nested 10k deep', body: nest('{"a":', '}', 10_000) },
  { name: 'arrays nested 10k deep', body: nest('[', ']', 10_000, '1', '{"name":', '}') },
  { name: 'arrays nested 100k deep', body: nest('[', ']', 100_000) },
  { name: 'a number of 400 digits', body: { text: `{"name": ${rep('9', 400)}}` } },
  {
    name: '1e400',
    body: { text: '{"name": 1e400, "query": 1e400, "top_n": 1e400, "max_tokens": 1e400}' },
  },
  {
    name: 'minus 1e400',
    body: { text: '{"name": -1e400, "top_n": -1e400, "max_tokens": -1e400}' },
  },
  { name: '1e minus 400', body: { text: '{"name": 1e-400, "top_n": 1e-400}' } },
  {
    name: '__proto__ with a polluting object',
    body: { text: '{"__proto__": {"polluted": "yes", "isPlatformAdmin": true}}' },
  },
  {
    name: '__proto__ beside name',
    body: { text: '{"name": "hostile-proto", "__proto__": {"polluted": "yes"}}' },
  },
  {
    name: 'constructor.prototype',
    body: { text: '{"constructor": {"prototype": {"polluted": "yes"}}}' },
  },
  { name: 'prototype key', body: { text: '{"prototype": {"polluted": "yes"}}' } },
  { name: 'nested __proto__', body: { text: '{"a": {"b": {"__proto__": {"polluted": "yes"}}}}' } },
  { name: '__proto__ in an array', body: { text: '[{"__proto__": {"polluted": "yes"}}]' } },
  {
    name: 'duplicate keys, the last one invalid',
    body: { text: '{"name": "ok", "name": {"x": 1}, "query": "ok", "query": 7}' },
  },
  {
    name: 'duplicate __proto__ keys',
    body: { text: '{"__proto__": {"a": 1}, "__proto__": {"polluted": "yes"}}' },
  },
  {
    name: 'invalid UTF-8 (0xff) in a string',
    body: { base64: b64('{"name": "a\xff\xfeb", "query": "a\xffb"}') },
  },
  {
    name: 'an overlong UTF-8 encoding of /',
    body: { base64: b64('{"name": "\xc0\xaf", "query": "\xc0\xaf"}') },
  },
  {
    name: 'a lone UTF-16 surrogate encoded as UTF-8',
    body: { base64: b64('{"name": "\xed\xa0\x80", "query": "\xed\xa0\x80"}') },
  },
  { name: 'a UTF-8 byte-order mark', body: { base64: b64('\xef\xbb\xbf{"zzz": 1}') } },
  {
    name: 'UTF-16 claimed by charset',
    body: { base64: Buffer.from('{"name":"a"}', 'utf16le').toString('base64') },
    headers: { 'content-type': 'application/json; charset=utf-16' },
    expect: { status: 415, code: 'unsupported_media_type' },
  },
  {
    name: 'an unknown charset',
    body: { text: '{"name":"a"}' },
    headers: { 'content-type': 'application/json; charset=x-hostile' },
    expect: { status: 415, code: 'unsupported_media_type' },
  },
  {
    name: 'a body of 1.1 MB',
    body: {
      recipe: { kind: 'repeat', text: 'a', times: 1_100_000, prefix: '{"name": "', suffix: '"}' },
    },
    expect: TOO_LARGE,
  },
  {
    name: 'a gzip bomb (20 MB of spaces in 20 KB)',
    body: {
      recipe: {
        kind: 'gzip',
        of: {
          recipe: {
            kind: 'repeat',
            text: ' ',
            times: 20_000_000,
            prefix: '{"name": "a"',
            suffix: '}',
          },
        },
      },
    },
    headers: { 'content-encoding': 'gzip' },
    expect: TOO_LARGE,
  },
  {
    name: 'gzip claimed, not gzip',
    body: { text: '{"name": "a"}' },
    headers: { 'content-encoding': 'gzip' },
    expect: { status: 400, code: 'bad_request' },
  },
  {
    name: 'an unknown content encoding',
    body: { text: '{"name": "a"}' },
    headers: { 'content-encoding': 'x-hostile' },
    expect: { status: 415, code: 'unsupported_media_type' },
  },
  {
    name: 'a string of 100k NUL escapes',
    body: {
      recipe: {
        kind: 'repeat',
        text: '\\u0000',
        times: 100_000,
        prefix: '{"name": "',
        suffix: '", "query": 1}',
      },
    },
  },
  {
    name: 'a key of 500 KB',
    body: { recipe: { kind: 'repeat', text: 'k', times: 500_000, prefix: '{"', suffix: '": 1}' } },
  },
  {
    name: '100k keys',
    body: {
      recipe: { kind: 'repeat', text: '"k": 1,', times: 100_000, prefix: '{', suffix: '"z": 1}' },
    },
  },
];

function jsonBodies(): HttpEntry[] {
  const out: HttpEntry[] = [];
  for (const route of ROUTES) {
    for (const bad of BAD_BODIES) {
      let expect = bad.expect ?? route.invalid;
      // The vendor API has its own error shape: the status only.
      if (route.name === 'messages') expect = VENDOR_REFUSAL;
      out.push({
        id: `json-bodies/${route.name}/${slug(bad.name)}`,
        note: `${route.method} ${route.path} with ${bad.name}`,
        kind: 'http',
        method: route.method,
        path: route.path,
        as: 'admin',
        headers: { 'content-type': 'application/json', ...bad.headers },
        body: bad.body,
        expect,
      });
    }
  }
  // Bodies valid but for their bytes: not UTF-8, or a NUL in a string (docs/adr/0042).
  const exact: [string, string, string, Buffer, Expect][] = [
    ['api-keys', 'POST', '/v1/api-keys', Buffer.from('{"name":"a\xffb"}', 'latin1'), INVALID],
    ['api-keys', 'POST', '/v1/api-keys', Buffer.from('{"name":"a\\u0000b"}'), INVALID],
    ['api-keys', 'POST', '/v1/api-keys', Buffer.from('{"name":"\xc0\xaf"}', 'latin1'), INVALID],
    [
      'search',
      'POST',
      '/v1/collections/hostile/search',
      Buffer.from('{"query":"garden\xff"}', 'latin1'),
      INVALID,
    ],
    [
      'search',
      'POST',
      '/v1/collections/hostile/search',
      Buffer.from('{"query":"garden\\u0000"}'),
      INVALID,
    ],
    [
      'search',
      'POST',
      '/v1/collections/hostile/search',
      Buffer.from(
        '{"query":"garden","filters":[{"field":"t\\u0000","operator":"==","value":"a"}]}',
      ),
      INVALID,
    ],
    [
      'rerank',
      'POST',
      '/v1/rerank',
      Buffer.from('{"query":"a\xff","documents":["x"]}', 'latin1'),
      { status: 400, code: 'rerank_bad_request' },
    ],
    [
      'rerank',
      'POST',
      '/v1/rerank',
      Buffer.from('{"query":"a\\u0000","documents":["x"]}'),
      { status: 400, code: 'rerank_bad_request' },
    ],
    [
      'folders',
      'POST',
      '/v1/folders',
      Buffer.from('{"name":"a\\u0000b","parent_id":null}'),
      INVALID,
    ],
    [
      'mcp-servers',
      'POST',
      '/v1/mcp/servers',
      Buffer.from(
        '{"runtime":"remote","name":"nul","display_name":"N\\u0000","address":"https://example.com/mcp"}',
      ),
      INVALID,
    ],
  ];
  exact.forEach(([name, method, path, body, expect], i) =>
    out.push({
      id: `json-bodies/${name}/valid-but-its-bytes-${i}`,
      note: `${method} ${path} with ${body.toString('latin1')}`,
      kind: 'http',
      method,
      path,
      as: 'admin',
      headers: { 'content-type': 'application/json' },
      body: { base64: body.toString('base64') },
      expect,
    }),
  );
  // Duplicate keys: the last one counts (JSON.parse), so a valid last value is judged valid.
  out.push({
    id: 'json-bodies/search/duplicate-keys-last-valid',
    note: 'duplicate "query" keys, the last a valid string: judged by it (no collection: 404)',
    kind: 'http',
    method: 'POST',
    path: '/v1/collections/hostile/search',
    as: 'admin',
    headers: { 'content-type': 'application/json' },
    body: { text: '{"query": 7, "query": "garden"}' },
    expect: { status: 404, code: 'collection_not_found' },
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Headers: sent with fetch where it will, raw over a socket where it will not.
function headers(): Entry[] {
  const out: Entry[] = [];
  const me = (id: string, note: string, e: Partial<HttpEntry>, expect: Expect) =>
    out.push({
      id: `headers/${id}`,
      note,
      kind: 'http',
      method: 'GET',
      path: '/v1/me',
      ...e,
      expect,
    });
  const raw = (id: string, note: string, raw: string, expect: Expect = { refused: true }) =>
    out.push({ id: `headers/${id}`, note, kind: 'raw', raw, expect } satisfies RawEntry);

  // Conflicting credentials (spec core-api, Authentication 2: X-Api-Key takes precedence).
  me(
    'key-and-garbage-bearer',
    'valid X-Api-Key and a garbage bearer: the key wins',
    { as: 'none', headers: { 'x-api-key': '{key}', authorization: 'Bearer garbage.token.here' } },
    { status: 200 },
  );
  me(
    'garbage-key-and-valid-bearer',
    'garbage X-Api-Key and a valid JWT: the key wins, refused',
    { as: 'none', headers: { 'x-api-key': 'sk-svc-v1-garbage', authorization: 'Bearer {jwt}' } },
    { status: 401, code: 'invalid_api_key' },
  );
  me(
    'key-and-other-key-bearer',
    'X-Api-Key valid and a different platform key as bearer: the X-Api-Key wins',
    {
      as: 'none',
      headers: { 'x-api-key': '{key}', authorization: 'Bearer sk-svc-v1-someoneelse' },
    },
    { status: 200 },
  );
  me(
    'bad-key-and-good-key-bearer',
    'a revoked-looking X-Api-Key and the valid key as bearer: the X-Api-Key wins, refused',
    {
      as: 'none',
      headers: { 'x-api-key': 'sk-svc-v1-AAAAAAAAAAAAAAAAAAAAAAAA', authorization: 'Bearer {key}' },
    },
    { status: 401, code: 'invalid_api_key' },
  );
  me(
    'empty-key',
    'an empty X-Api-Key',
    { as: 'none', headers: { 'x-api-key': '' } },
    { status: 401 },
  );
  me(
    'key-without-prefix',
    'an X-Api-Key without the platform prefix',
    { as: 'none', headers: { 'x-api-key': 'not-a-platform-key' } },
    { status: 401, code: 'invalid_api_key' },
  );
  me(
    'key-prefix-only',
    'the prefix alone',
    { as: 'none', headers: { 'x-api-key': 'sk-svc-v1-' } },
    { status: 401, code: 'invalid_api_key' },
  );
  me(
    'key-8k',
    'an X-Api-Key of 8 KB',
    { as: 'none', headers: { 'x-api-key': `sk-svc-v1-${rep('A', 8000)}` } },
    { status: 401, code: 'invalid_api_key' },
  );
  me(
    'key-sql',
    'an X-Api-Key carrying SQL',
    { as: 'none', headers: { 'x-api-key': "sk-svc-v1-' OR '1'='1" } },
    { status: 401, code: 'invalid_api_key' },
  );
  me(
    'key-percent',
    'an X-Api-Key with percent escapes',
    { as: 'none', headers: { 'x-api-key': 'sk-svc-v1-%00%0d%0a' } },
    { status: 401, code: 'invalid_api_key' },
  );
  me(
    'bearer-empty',
    'Authorization: Bearer with nothing',
    { as: 'none', headers: { authorization: 'Bearer ' } },
    { status: 401 },
  );
  me(
    'basic-auth',
    'Authorization: Basic',
    { as: 'none', headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } },
    { status: 401 },
  );
  me(
    'jwt-alg-none',
    'an unsigned JWT (alg none)',
    {
      as: 'none',
      headers: {
        authorization: `Bearer ${b64('{"alg":"none","typ":"JWT"}').replace(/=+$/, '')}.${b64('{"sub":"admin","realm_access":{"roles":["platform-admin"]}}').replace(/=+$/, '')}.`,
      },
    },
    { status: 401, code: 'invalid_token' },
  );
  me(
    'jwt-garbage-segments',
    'a three-segment garbage JWT',
    { as: 'none', headers: { authorization: 'Bearer a.b.c' } },
    { status: 401, code: 'invalid_token' },
  );
  me(
    'jwt-huge',
    'a bearer of 12 KB',
    { as: 'none', headers: { authorization: `Bearer ${rep('e', 12_000)}` } },
    { status: 401, code: 'invalid_token' },
  );
  me(
    'bearer-lowercase-key',
    'the key as a lowercase bearer scheme: equivalent (spec Authentication 1)',
    { as: 'none', headers: { authorization: 'bearer {key}' } },
    { status: 200 },
  );
  // X-Aiplane-Organization.
  // A member naming anything but one of their organizations: 403 organization_access_denied.
  // A platform admin may act in any organization, so a value that is no UUID is 400
  // organization_invalid, and a UUID is taken (GET /v1/api-keys lists the caller's own keys).
  const org = (id: string, value: string, admin: Expect) => {
    for (const as of ['member', 'admin'] as const) {
      me(
        `organization-${id}-${as}`,
        `X-Aiplane-Organization: ${value.slice(0, 60)} (${as})`,
        { path: '/v1/api-keys', as, org: { value } },
        as === 'member' ? { status: 403, code: 'organization_access_denied' } : admin,
      );
    }
  };
  const invalidOrg: Expect = { status: 400, code: 'organization_invalid' };
  org('not-uuid', 'not-a-uuid', invalidOrg);
  org('uuid-braces', '{00000000-0000-0000-0000-000000000000}', invalidOrg);
  org('sql', "' OR 1=1 --", invalidOrg);
  org('traversal', '../../admin', invalidOrg);
  org('long', rep('a', 4000), invalidOrg);
  org('unicode', 'organizácia-ñ', invalidOrg);
  org('foreign-uuid', '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b', { status: 200 });
  org('nil-uuid', '00000000-0000-0000-0000-000000000000', { status: 200 });
  org('two-values', '{org}, 6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b', invalidOrg);
  org('uppercase-of-a-foreign-uuid', '6F1C2A9E-3B4D-4E5F-8A7B-9C0D1E2F3A4B', { status: 200 });
  org('uuid-with-suffix', '{org}x', invalidOrg);
  // Oversized headers: Node's limit (16 KB) answers 431 before any route.
  me(
    'header-20k',
    'one header of 20 KB',
    { as: 'admin', headers: { 'x-padding': rep('p', 20_000) } },
    { status: 431 },
  );
  me(
    'header-many',
    '400 headers of 60 bytes',
    {
      as: 'admin',
      headers: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, rep('v', 60)])),
    },
    { status: 431 },
  );
  me(
    'cookie-20k',
    'a cookie of 20 KB',
    { as: 'admin', headers: { cookie: `a=${rep('c', 20_000)}` } },
    { status: 431 },
  );
  me(
    'accept-bomb',
    'an Accept of 2000 types',
    {
      as: 'admin',
      headers: {
        accept: Array.from({ length: 1000 }, (_, i) => `a/b${i};q=0.${i % 10}`)
          .join(',')
          .slice(0, 10_000),
      },
    },
    { status: 200 },
  );
  me(
    'content-type-garbage',
    'a GET with a garbage Content-Type',
    { as: 'admin', headers: { 'content-type': 'x/\u00ff;;;===' } },
    { status: 200 },
  );
  me(
    'host-garbage',
    'X-Forwarded-Host and X-Forwarded-For spoofed (trust proxy is off)',
    {
      as: 'admin',
      headers: {
        'x-forwarded-host': 'evil.example',
        'x-forwarded-for': '127.0.0.1, 10.0.0.1',
        'x-forwarded-proto': 'gopher',
      },
    },
    { status: 200 },
  );
  me(
    'method-override',
    'X-HTTP-Method-Override: DELETE on a GET',
    { as: 'admin', path: '/v1/api-keys', headers: { 'x-http-method-override': 'DELETE' } },
    { status: 200 },
  );

  // Raw: what fetch will not send.
  const GET = (extra: string, path = '/v1/me') =>
    `GET ${path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {jwt}\r\n${extra}Connection: close\r\n\r\n`;
  raw(
    'crlf-lf-in-value',
    'a bare LF inside a header value (an injected header)',
    GET('X-Test: a\nX-Api-Key: sk-svc-v1-injected\r\n'),
    { refused: true },
  );
  raw(
    'crlf-cr-in-value',
    'a bare CR inside a header value',
    GET('X-Test: a\rSet-Cookie: x=1\r\n'),
    { refused: true },
  );
  raw('nul-in-value', 'a NUL inside a header value', GET('X-Test: a\u0000b\r\n'), {
    refused: true,
  });
  raw(
    'obs-fold',
    'an obsolete line folding continuation of Authorization',
    GET('X-Test: a\r\n Authorization: Bearer garbage\r\n'),
    { refused: true },
  );
  raw('space-before-colon', 'a space before the colon', GET('X-Api-Key : sk-svc-v1-x\r\n'), {
    refused: true,
  });
  raw('header-no-colon', 'a header line without a colon', GET('Nonsense\r\n'), { refused: true });
  raw(
    'two-authorizations',
    'two different Authorization headers',
    GET('Authorization: Bearer sk-svc-v1-someoneelse\r\n'),
    { status: 400, code: 'bad_request' },
  );
  raw(
    'two-authorizations-reversed',
    'a garbage Authorization, then the valid one',
    `GET /v1/me HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer garbage\r\nAuthorization: Bearer {jwt}\r\nConnection: close\r\n\r\n`,
    { status: 400, code: 'bad_request' },
  );
  raw(
    'key-and-two-authorizations',
    'a valid X-Api-Key and two Authorization headers',
    `GET /v1/me HTTP/1.1\r\nHost: {host}\r\nX-Api-Key: {key}\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nConnection: close\r\n\r\n`,
    { status: 400, code: 'bad_request' },
  );
  raw(
    'two-api-keys',
    'two different X-Api-Key headers',
    `GET /v1/me HTTP/1.1\r\nHost: {host}\r\nX-Api-Key: {key}\r\nX-Api-Key: sk-svc-v1-someoneelse\r\nConnection: close\r\n\r\n`,
    { status: 400, code: 'bad_request' },
  );
  raw(
    'two-same-api-keys',
    'the same X-Api-Key twice',
    `GET /v1/me HTTP/1.1\r\nHost: {host}\r\nX-Api-Key: {key}\r\nX-Api-Key: {key}\r\nConnection: close\r\n\r\n`,
    { status: 400, code: 'bad_request' },
  );
  raw(
    'two-organizations',
    'two X-Aiplane-Organization headers',
    GET(
      'X-Aiplane-Organization: {org}\r\nX-Aiplane-Organization: 6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b\r\n',
      '/v1/api-keys',
    ),
    { status: 400, code: 'organization_invalid' },
  );
  raw(
    'two-content-lengths',
    'two different Content-Length headers (request smuggling)',
    `POST /v1/api-keys HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {jwt}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{"name":"a"}`,
    { refused: true },
  );
  raw(
    'cl-and-te',
    'Content-Length and Transfer-Encoding: chunked (request smuggling)',
    `POST /v1/api-keys HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {jwt}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\nGET /v1/me HTTP/1.1\r\nHost: {host}\r\n\r\n`,
    { refused: true },
  );
  raw(
    'te-obfuscated',
    'an obfuscated Transfer-Encoding',
    `POST /v1/api-keys HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {jwt}\r\nContent-Type: application/json\r\nTransfer-Encoding: xchunked\r\nConnection: close\r\n\r\n5\r\n{"a":\r\n0\r\n\r\n`,
    { refused: true },
  );
  raw(
    'bad-chunk-size',
    'a chunk size that is not hex',
    `POST /v1/api-keys HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {jwt}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    { refused: true },
  );
  raw(
    'huge-chunk-size',
    'a chunk size of 2^64',
    `POST /v1/api-keys HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {jwt}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n`,
    { refused: true },
  );
  raw(
    'negative-content-length',
    'a negative Content-Length',
    `POST /v1/api-keys HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {jwt}\r\nContent-Length: -1\r\nConnection: close\r\n\r\n`,
    { refused: true },
  );
  raw('http-0.9', 'an HTTP/0.9 request line', 'GET /v1/me\r\n\r\n', { refused: true });
  raw(
    'http-version-garbage',
    'an unknown HTTP version',
    'GET /v1/me HTTP/7.3\r\nHost: {host}\r\nConnection: close\r\n\r\n',
    { refused: true },
  );
  raw(
    'method-garbage',
    'a method of control characters',
    'G\u0001T /v1/me HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n',
    { refused: true },
  );
  raw('header-40k', 'a header of 40 KB (raw)', GET(`X-Padding: ${rep('p', 40_000)}\r\n`), {
    status: 431,
  });
  raw('header-names-utf8', 'a header name with UTF-8 bytes', GET('X-Ünïcode: a\r\n'), {
    refused: true,
  });
  raw(
    'value-latin1',
    'an X-Aiplane-Organization with latin-1 bytes',
    GET('X-Aiplane-Organization: \u00e9\u00ff\r\n', '/v1/api-keys'),
    { status: 400, code: 'organization_invalid' },
  );
  raw(
    'absolute-form-target',
    'an absolute-form request target to another host',
    'GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\nConnection: close\r\n\r\n',
    { refused: true, absent: ['ami-id', 'instance-id'] },
  );
  raw(
    'asterisk-target',
    'an asterisk-form target with GET',
    'GET * HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n',
    { refused: true },
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// Paths: traversal, encoded slashes, very long, NUL bytes; nothing outside the routes answers.
function paths(): HttpEntry[] {
  const secret = ['root:x:0:0', '[boot loader]', 'BEGIN RSA', 'BEGIN PRIVATE KEY', 'password'];
  const out: HttpEntry[] = [];
  const add = (path: string, expect: Expect, as: 'admin' | 'none' = 'admin', method = 'GET') =>
    out.push({
      id: `paths/${method.toLowerCase()}${slug(path).slice(0, 80)}-${out.length}`,
      note: `${method} ${path.slice(0, 120)}`,
      kind: 'http',
      method,
      path,
      as,
      expect: { ...expect, absent: secret },
    });
  const traversals = [
    '..%2f..%2f..%2f..%2fetc%2fpasswd',
    '..%2F..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '%252e%252e%252fetc%252fpasswd',
    '..%5c..%5c..%5cwindows%5cwin.ini',
    '..\\..\\..\\etc\\passwd',
    '%c0%ae%c0%ae%2fetc%2fpasswd',
    '....%2f%2f....%2f%2fetc%2fpasswd',
    '..%00%2fetc%2fpasswd',
    '%2fetc%2fpasswd',
    '.%2e/.%2e/etc/passwd',
  ];
  // Under resources that take an id or a name: refused (a bad id, or nothing there).
  const bases: [string, Expect][] = [
    ['/v1/files/', { refused: true }],
    ['/v1/folders/', { refused: true }],
    ['/v1/api-keys/', { refused: true }],
    ['/v1/agents/', { refused: true }],
    ['/v1/admin/tenants/', { refused: true }],
    ['/v1/resource-profiles/', { refused: true }],
    ['/v1/model-installer/downloads/', { refused: true }],
  ];
  for (const [base, expect] of bases) for (const t of traversals) add(base + t, expect);
  // MCP server ids: a missing one and a malformed one look alike (spec: tenants-and-mcp, Errors).
  for (const t of traversals.slice(0, 6))
    add(`/v1/mcp/servers/${t}`, { status: [403, 422], code: undefined });
  for (const t of traversals.slice(0, 4))
    add(`/v1/collections/${t}/search`, { refused: true }, 'admin', 'POST');
  // Public surfaces: the portal's static files, the docs.
  for (const t of traversals) {
    add(`/portal/${t}`, { status: [200, 301, 302, 400, 403, 404] });
    add(`/portal/assets/${t}`, { status: [200, 301, 302, 400, 403, 404] }, 'none');
  }
  add('/portal/../../../../etc/passwd', { status: [200, 301, 302, 400, 403, 404] }, 'none');
  add('/docs/..%2f..%2fpackage.json', { status: [200, 301, 302, 400, 403, 404] }, 'none');
  // Malformed percent-encoding and NUL bytes.
  add('/v1/files/%', { status: 400, code: 'bad_request' });
  add('/v1/files/%zz', { status: 400, code: 'bad_request' });
  add('/v1/files/%e0%a4%a', { status: 400, code: 'bad_request' });
  add('/v1/files/%ff%fe', { refused: true });
  add('/v1/files/%00', { refused: true });
  add('/v1/files/abc%00def', { refused: true });
  add('/v1/api-keys/%00', { refused: true });
  add('/v1/me%00', { status: 400, code: 'bad_request' });
  add('/v1/api-keys?name=%00', { status: 400, code: 'bad_request' });
  add('/v1/collections/a%00b/search', { status: 400, code: 'bad_request' }, 'admin', 'POST');
  add('/v1/resource-profiles/a%00b', { status: 400, code: 'bad_request' });
  add('/v1/me%2f', { status: 404, code: 'route_not_found' });
  add('/v1%2fme', { refused: true });
  add('/v1/%2e%2e/v1/me', { refused: true });
  add('//v1//me', { refused: true });
  add('/v1/./me/.', { status: [200, 404] });
  // Express matches paths without regard to case: the same route, nothing more.
  add('/V1/ME', { status: [200, 404] });
  // Very long.
  add(`/v1/files/${rep('a', 4000)}`, { refused: true });
  add(`/v1/files/${rep('%41', 5000)}`, { refused: true });
  add(`/v1/${rep('a/', 3000)}`, { refused: true });
  add(`/v1/files/x?${rep('q=1&', 3000)}`, { refused: true });
  add(`/v1/me?${rep('a', 14_000)}`, { status: 200 });
  add(`/v1/files/${rep('a', 20_000)}`, { status: 431 });
  // Query strings that try to inject arrays or objects into parsers.
  add('/v1/files?scope[]=all&scope[]=mine', { refused: true });
  add('/v1/files?scope[__proto__][polluted]=yes', { refused: true });
  add('/v1/api-keys?__proto__[polluted]=yes', { status: [200, 400, 422] });
  add('/v1/api-keys?constructor[prototype][polluted]=yes', { status: [200, 400, 422] });
  add('/v1/api-keys?toString=1&hasOwnProperty=1&valueOf[x]=1', { status: [200, 400, 422] });
  // Methods the routes do not have.
  add('/v1/me', { status: 404, code: 'route_not_found' }, 'admin', 'DELETE');
  add('/v1/me', { refused: true }, 'admin', 'TRACE');
  add('/v1/api-keys', { refused: true }, 'admin', 'PATCH');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Remote MCP addresses: every one refused with 400 mcp_server_address_invalid (spec:
// tenants-and-mcp, address: absolute http(s) URL, no user or password, publicly resolvable).
function addresses(): HttpEntry[] {
  const hosts = [
    // loopback
    '127.0.0.1',
    '127.0.0.2',
    '127.255.255.254',
    '127.1',
    '127.0.1',
    '0.0.0.0',
    '0',
    '[::1]',
    '[::]',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    // decimal, octal, hex and mixed forms of 127.0.0.1 and 169.254.169.254
    '2130706433',
    '017700000001',
    '0x7f000001',
    '0x7f.1',
    '0x7f.0.0.1',
    '0177.0.0.1',
    '0177.1',
    '127.000.000.001',
    '0x7F.0x00.0x00.0x01',
    '2852039166',
    '0xa9fea9fe',
    '0251.0376.0251.0376',
    '0xa9.0xfe.0xa9.0xfe',
    '169.254.43518',
    // private ranges
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.0.1',
    '192.168.255.255',
    '100.64.0.1',
    '100.127.255.254',
    '0x0a000001',
    '167772161',
    '012.0.0.1',
    '[fc00::1]',
    '[fd12:3456:789a::1]',
    '[::ffff:10.0.0.1]',
    '[::ffff:192.168.1.1]',
    '[::ffff:a00:1]',
    // link-local and cloud metadata
    '169.254.169.254',
    '169.254.0.1',
    '[fe80::1]',
    '[fe80::1%25eth0]',
    '[::ffff:169.254.169.254]',
    '[fd00:ec2::254]',
    '169.254.170.2',
    // multicast, broadcast, reserved, documentation, benchmarking
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '[ff02::1]',
    '192.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.1',
    '[2001:db8::1]',
    '[100::1]',
    // names that resolve to loopback or private addresses (offline: /etc/hosts, .localhost)
    'localhost',
    'localhost.',
    'LOCALHOST',
    'foo.localhost',
    'a.b.localhost',
    'vm',
    'runsc',
    'localtest.me',
    'x.localtest.me',
    '127.0.0.1.nip.io',
    'metadata.google.internal',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
    'host.docker.internal',
    'does-not-exist.invalid',
    'example.test',
  ];
  const urls: string[] = [];
  for (const h of hosts) urls.push(`http://${h}/mcp`);
  for (const h of ['127.0.0.1', '[::1]', '169.254.169.254', 'localhost', '2130706433']) {
    urls.push(`https://${h}:8443/mcp`, `http://${h}:80/`);
  }
  urls.push(
    // not http(s), no host, credentials, malformed
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
    'ftp://example.com/mcp',
    'javascript:alert(1)',
    'data:text/plain,hello',
    'ws://example.com/mcp',
    'dict://127.0.0.1:11211/',
    'ldap://127.0.0.1/',
    'http://user:pass@example.com/mcp',
    'http://user@example.com/mcp',
    'http://:pass@example.com/mcp',
    'http://example.com@127.0.0.1/mcp',
    'http://127.0.0.1#@example.com/mcp',
    'http://127.0.0.1\\@example.com/mcp',
    'http:/127.0.0.1/mcp',
    'http:127.0.0.1/mcp',
    '//127.0.0.1/mcp',
    '127.0.0.1/mcp',
    'http://',
    'http:///mcp',
    'http://[::1/mcp',
    'http://127.0.0.1:99999/mcp',
    'http://127.0.0.1:-1/mcp',
    'http://exa mple.com/mcp',
    'http://%31%32%37.0.0.1/mcp',
    'http://127。0。0。1/mcp',
    'http://①②⑦.0.0.1/mcp',
    'http://0x7f\u0000.example.com/mcp',
    'http://127.0.0.1\r\nHost: example.com/mcp',
    ' http://127.0.0.1/mcp',
    'HTTP://LOCALHOST/mcp',
    'http://[::ffff:127.0.0.1]:80/mcp',
    `http://example.com/${rep('a', 2100)}`,
    '',
  );
  return urls.map((address, i) => ({
    id: `remote-mcp-addresses/${i}-${slug(address).slice(0, 60)}`,
    note: `remote address ${JSON.stringify(address.slice(0, 100))}`,
    kind: 'http',
    method: 'POST',
    path: '/v1/mcp/servers',
    as: 'admin',
    headers: { 'content-type': 'application/json' },
    body: { json: { runtime: 'remote', name: `hostile-${i}`, display_name: 'Hostile', address } },
    // An empty or over-long address fails the request's validation (422, spec: Errors).
    expect:
      address === '' || address.includes('⟪') || address.includes('\u0000')
        ? { status: [400, 422] }
        : { status: 400, code: 'mcp_server_address_invalid' },
  }));
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC frames to the gateway, for a registered server of the test (`{server}`).
function jsonrpc(): HttpEntry[] {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'hostile', version: '1' },
    },
  };
  const frames: [string, Payload, Expect][] = [
    ['an empty body', { text: '' }, { status: 400 }],
    ['not JSON', { text: '{"jsonrpc": "2.0", ' }, { status: 400 }],
    ['a JSON string', { text: '"initialize"' }, { status: 400 }],
    ['a JSON number', { text: '1' }, { status: 400 }],
    ['null', { text: 'null' }, { status: 400 }],
    ['an empty batch', { text: '[]' }, { status: 400 }],
    ['a batch of numbers', { json: [1, 2, 3] }, { status: 400 }],
    ['a batch with a non-object', { json: [init, 'x'] }, { status: 400 }],
    ['a batch with null', { json: [init, null] }, { status: 400 }],
    ['a nested batch', { json: [[init]] }, { status: 400 }],
    [
      'a batch of 1000 pings',
      {
        text: `[${rep('{"jsonrpc":"2.0","id":1,"method":"ping"},', 999)}{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
      },
      { refused: true },
    ],
    ['a batch of initialize twice', { json: [init, { ...init, id: 2 }] }, { refused: true }],
    [
      'a batch mixing tools/call and initialize',
      {
        json: [
          init,
          {
            jsonrpc: '2.0',
            id: 9,
            method: 'tools/call',
            params: { name: 'search', arguments: {} },
          },
        ],
      },
      { status: [200, 400] },
    ],
    [
      'initialize without an id (a notification)',
      { json: { ...init, id: undefined } },
      { status: [202, 400] },
    ],
    [
      'a ping without a session',
      { json: { jsonrpc: '2.0', id: 5, method: 'ping' } },
      { refused: true },
    ],
    [
      'tools/list without a session',
      { json: { jsonrpc: '2.0', id: 5, method: 'tools/list' } },
      { refused: true },
    ],
    [
      'a huge integer id',
      { text: `{"jsonrpc":"2.0","id":${rep('9', 400)},"method":"ping"}` },
      { refused: true },
    ],
    ['id 1e400', { text: '{"jsonrpc":"2.0","id":1e400,"method":"ping"}' }, { refused: true }],
    [
      'a string id of 100 KB',
      { json: { jsonrpc: '2.0', id: rep('i', 100_000), method: 'ping' } },
      { refused: true },
    ],
    ['an object id', { json: { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' } }, { refused: true }],
    ['an array id', { json: { jsonrpc: '2.0', id: [1], method: 'ping' } }, { refused: true }],
    ['a boolean id', { json: { jsonrpc: '2.0', id: true, method: 'ping' } }, { refused: true }],
    ['a fractional id', { json: { jsonrpc: '2.0', id: 1.5, method: 'ping' } }, { refused: true }],
    ['jsonrpc 1.0', { json: { ...init, jsonrpc: '1.0' } }, { refused: true }],
    ['jsonrpc as a number', { json: { ...init, jsonrpc: 2 } }, { refused: true }],
    [
      'no jsonrpc member',
      { json: { id: 1, method: 'initialize', params: init.params } },
      { refused: true },
    ],
    ['no method', { json: { jsonrpc: '2.0', id: 1 } }, { refused: true }],
    ['a numeric method', { json: { jsonrpc: '2.0', id: 1, method: 7 } }, { refused: true }],
    [
      'an unknown method',
      { json: { jsonrpc: '2.0', id: 1, method: 'rpc.evil' } },
      { refused: true },
    ],
    [
      'a method of 100 KB',
      { json: { jsonrpc: '2.0', id: 1, method: rep('m', 100_000) } },
      { refused: true },
    ],
    ['params as a string', { json: { ...init, params: 'x' } }, { refused: true }],
    ['params as a number', { json: { ...init, params: 1 } }, { refused: true }],
    ['params as null', { json: { ...init, params: null } }, { refused: true }],
    [
      'tools/call with params an array',
      { json: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: ['search'] } },
      { status: [200, 400] },
    ],
    [
      'tools/call with a numeric name',
      { json: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 7 } } },
      { status: [200, 400] },
    ],
    [
      'tools/call of __proto__',
      {
        json: {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: '__proto__', arguments: {} },
        },
      },
      { status: [200, 400] },
    ],
    [
      '__proto__ in params',
      {
        text: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"__proto__":{"polluted":"yes"},"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}',
      },
      { status: [200, 400] },
    ],
    [
      'constructor.prototype in params',
      {
        text: '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"constructor":{"prototype":{"polluted":"yes"}}}}',
      },
      { refused: true },
    ],
    [
      'duplicate method keys',
      { text: '{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping"}' },
      { refused: true },
    ],
    [
      'params nested 10k deep',
      nest('{"a":', '}', 10_000, '1', '{"jsonrpc":"2.0","id":1,"method":"ping","params":', '}'),
      { refused: true },
    ],
    ['arrays nested 100k deep', nest('[', ']', 100_000), { status: 400 }],
    [
      'invalid UTF-8',
      { base64: b64('{"jsonrpc":"2.0","id":1,"method":"ping\xff"}') },
      { status: 400 },
    ],
    [
      'a UTF-8 byte-order mark',
      { base64: b64(`\xef\xbb\xbf${JSON.stringify(init)}`) },
      { status: 400 },
    ],
    [
      'UTF-16',
      { base64: Buffer.from(JSON.stringify(init), 'utf16le').toString('base64') },
      { status: 400 },
    ],
    [
      'a body of 5 MB',
      {
        recipe: {
          kind: 'repeat',
          text: ' ',
          times: 5_000_000,
          prefix: '{"jsonrpc":"2.0","id":1,"method":"ping"',
          suffix: '}',
        },
      },
      { status: 413 },
    ],
    [
      'a response frame sent as a request',
      { json: { jsonrpc: '2.0', id: 1, result: {} } },
      { status: [202, 400] },
    ],
    [
      'an error frame sent as a request',
      { json: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } } },
      { status: [202, 400] },
    ],
    [
      'a notification of cancellation for a foreign id',
      {
        json: {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 'someone-else' },
        },
      },
      { status: [202, 400] },
    ],
  ];
  const out: HttpEntry[] = frames.map(([name, body, expect]) => ({
    id: `jsonrpc-frames/${slug(name)}`,
    note: `gateway POST with ${name}`,
    kind: 'http',
    target: 'gateway',
    method: 'POST',
    path: '',
    as: 'member',
    org: 'none',
    headers: { ...GATEWAY_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    body,
    expect,
  }));
  // Headers of the 2026-07-28 revision that disagree with the body: 400.
  out.push({
    id: 'jsonrpc-frames/mcp-method-mismatch',
    note: 'Mcp-Method says tools/list, the body says initialize',
    kind: 'http',
    target: 'gateway',
    method: 'POST',
    path: '',
    as: 'member',
    org: 'none',
    headers: {
      ...GATEWAY_HEADERS,
      'mcp-method': 'tools/list',
    },
    body: { json: init },
    expect: { status: 400 },
  });
  out.push({
    id: 'jsonrpc-frames/session-id-garbage',
    note: 'a forged Mcp-Session-Id: 404 like an ended session',
    kind: 'http',
    target: 'gateway',
    method: 'POST',
    path: '',
    as: 'member',
    org: 'none',
    headers: {
      ...GATEWAY_HEADERS,
      'mcp-session-id': '../../../etc/passwd',
    },
    body: { json: { jsonrpc: '2.0', id: 4, method: 'ping' } },
    expect: { status: 404 },
  });
  out.push({
    id: 'jsonrpc-frames/unknown-server',
    note: 'a server id that is no server: mcp_server_access_denied',
    kind: 'http',
    target: 'gateway',
    method: 'POST',
    path: '/../6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b',
    as: 'member',
    org: 'none',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: { json: init },
    expect: { status: [403, 404] },
  });
  out.push({
    id: 'jsonrpc-frames/anonymous',
    note: 'no credentials',
    kind: 'http',
    target: 'gateway',
    method: 'POST',
    path: '',
    as: 'none',
    org: 'none',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: { json: init },
    expect: { status: 401 },
  });
  out.push({
    id: 'jsonrpc-frames/put',
    note: 'PUT is not an MCP method',
    kind: 'http',
    target: 'gateway',
    method: 'PUT',
    path: '',
    as: 'member',
    org: 'none',
    headers: { 'content-type': 'application/json' },
    body: { json: init },
    expect: { status: 405 },
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// The speech socket (spec core-api: /v1/stt; docs/speech.md): each refusal an error frame
// with its code, then a close.
function speech(): WsEntry[] {
  const pcm = 'encoding=pcm_int16&sample_rate_hz=16000&token={token}';
  const start = '{"type":"start"}';
  const out: WsEntry[] = [];
  const add = (name: string, query: string, frames: WsEntry['frames'], expect: WsEntry['expect']) =>
    out.push({
      id: `stt-websocket-frames/${slug(name)}`,
      note: name,
      kind: 'ws',
      query,
      frames,
      expect,
    });
  /** The error frame of `code`, then the close 1008 (policy violation). */
  const closed = (code: string) => ({ code, close: 1008 });
  const refusedBefore = closed('speech_message_invalid');
  // The query.
  add('the old language parameter', 'language=en&' + pcm, [], closed('parameter_renamed'));
  add('an unsupported lang', 'lang=xx&' + pcm, [], closed('unsupported_language'));
  add('lang of 10 KB', `lang=${rep('e', 10_000)}&` + pcm, [], closed('unsupported_language'));
  add('lang with a NUL', 'lang=en%00&' + pcm, [], closed('unsupported_language'));
  // A repeated parameter: the first counts, like URLSearchParams.get.
  add(
    'lang twice',
    'lang=en&lang=xx&' + pcm,
    [{ text: start }, { awaitReady: true }, { text: '{"type":"end"}' }],
    { close: 1000 },
  );
  add('no encoding', 'sample_rate_hz=16000&token={token}', [], closed('invalid_encoding'));
  add('an unknown encoding', 'encoding=flac&token={token}', [], closed('invalid_encoding'));
  add('encoding twice', 'encoding=flac&encoding=wav&token={token}', [], closed('invalid_encoding'));
  add(
    'pcm without a sample rate',
    'encoding=pcm_int16&token={token}',
    [],
    closed('invalid_sample_rate'),
  );
  add(
    'a sample rate of 1e400',
    'encoding=pcm_int16&sample_rate_hz=1e400&token={token}',
    [],
    closed('invalid_sample_rate'),
  );
  add(
    'a negative sample rate',
    'encoding=pcm_int16&sample_rate_hz=-16000&token={token}',
    [],
    closed('invalid_sample_rate'),
  );
  add(
    'a fractional sample rate',
    'encoding=pcm_int16&sample_rate_hz=16000.5&token={token}',
    [],
    closed('invalid_sample_rate'),
  );
  add(
    'a hex sample rate',
    'encoding=pcm_int16&sample_rate_hz=0x3e80&token={token}',
    [],
    closed('invalid_sample_rate'),
  );
  add('no token', 'encoding=wav', [], { status: 401 });
  add('a garbage token', 'encoding=wav&token=garbage', [], { status: 401 });
  add('a platform-key-shaped garbage token', 'encoding=wav&token=sk-svc-v1-garbage', [], {
    status: 401,
  });
  // Frames before the handshake.
  add(
    'binary before start',
    pcm,
    [{ binary: { recipe: { kind: 'zeros', bytes: 3200 } } }],
    closed('speech_audio_before_ready'),
  );
  add(
    'an empty binary frame before start',
    pcm,
    [{ binary: { base64: '' } }],
    closed('speech_audio_before_ready'),
  );
  add('bad JSON', pcm, [{ text: '{"type": "start"' }], refusedBefore);
  add('an empty text frame', pcm, [{ text: '' }], refusedBefore);
  add('a JSON array', pcm, [{ text: '[{"type":"start"}]' }], refusedBefore);
  add('a JSON string', pcm, [{ text: '"start"' }], refusedBefore);
  add('null', pcm, [{ text: 'null' }], refusedBefore);
  add('an unknown type', pcm, [{ text: '{"type":"stop"}' }], refusedBefore);
  add('end before start', pcm, [{ text: '{"type":"end"}' }], refusedBefore);
  add('type as a number', pcm, [{ text: '{"type":1}' }], refusedBefore);
  add(
    'a start with an unknown field',
    pcm,
    [{ text: '{"type":"start","evil":true}' }],
    refusedBefore,
  );
  add(
    'a start with __proto__',
    pcm,
    [{ text: '{"type":"start","__proto__":{"polluted":"yes"}}' }],
    refusedBefore,
  );
  add(
    'a start with constructor.prototype',
    pcm,
    [{ text: '{"type":"start","constructor":{"prototype":{"polluted":"yes"}}}' }],
    refusedBefore,
  );
  add('a type of __proto__', pcm, [{ text: '{"type":"__proto__"}' }], refusedBefore);
  add(
    'a start nested 10k deep',
    pcm,
    [{ text: `{"type":"start","x":${rep('[', 10_000)}${rep(']', 10_000)}}` }],
    refusedBefore,
  );
  add(
    'a text frame of 64 KB',
    pcm,
    [{ text: `{"type":"start","x":"${rep('a', 65_536)}"}` }],
    refusedBefore,
  );
  add('channels of 1e400', pcm, [{ text: '{"type":"start","channels":1e400}' }], refusedBefore);
  add('channels 0', pcm, [{ text: '{"type":"start","channels":0}' }], refusedBefore);
  add(
    'channels for wav',
    'encoding=wav&token={token}',
    [{ text: '{"type":"start","channels":2}' }],
    refusedBefore,
  );
  add(
    'invalid UTF-8 in a text frame',
    pcm,
    [{ textBytes: { base64: b64('{"type":"start\xff"}') } }],
    { close: 1007 },
  );
  add(
    'a frame over the socket limit before start',
    pcm,
    [{ binary: { recipe: { kind: 'zeros', bytes: 300_000 } } }],
    { close: 1009 },
  );
  // After session_ready.
  add(
    'a second start',
    pcm,
    [{ text: start }, { awaitReady: true }, { text: start }],
    refusedBefore,
  );
  add(
    'an unknown type after start',
    pcm,
    [{ text: start }, { awaitReady: true }, { text: '{"type":"pause"}' }],
    refusedBefore,
  );
  add(
    'end with an extra field',
    pcm,
    [{ text: start }, { awaitReady: true }, { text: '{"type":"end","x":1}' }],
    refusedBefore,
  );
  add(
    'bad JSON after start',
    pcm,
    [{ text: start }, { awaitReady: true }, { text: 'not json' }],
    refusedBefore,
  );
  add(
    'a frame over the frame limit',
    pcm,
    [
      { text: start },
      { awaitReady: true },
      { binary: { recipe: { kind: 'zeros', bytes: 70_000 } } },
    ],
    { code: 'speech_frame_too_large', close: 1009 },
  );
  add(
    'a PCM frame of an odd byte count',
    pcm,
    [
      { text: start },
      { awaitReady: true },
      { binary: { base64: 'AAAA/w==' } },
      { text: '{"type":"end"}' },
    ],
    { close: 1000 },
  );
  add(
    'garbage as wav',
    'encoding=wav&token={token}',
    [
      { text: start },
      { awaitReady: true },
      { binary: { base64: b64('RIFF\xff\xff\xff\xffWAVEfmt garbage garbage garbage') } },
      { text: '{"type":"end"}' },
    ],
    { code: 'speech_audio_invalid', close: 1007 },
  );
  add(
    'garbage as mp3',
    'encoding=mp3&token={token}',
    [
      { text: start },
      { awaitReady: true },
      { binary: { base64: b64(rep('<html><script>alert(1)</script></html>', 50)) } },
      { text: '{"type":"end"}' },
    ],
    { code: 'speech_audio_invalid', close: 1007 },
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// Logo files (spec core-api Limits: SVG, PNG or WebP, up to 512 KB). Refused, or served inert.
function logos(): HttpEntry[] {
  const unsupported: Expect = { status: 415, code: 'unsupported_media_type' };
  const safe: Expect = { status: [200, 415], servedSafe: true };
  const svg = (inner: string, attrs = '') =>
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"${attrs}>${inner}</svg>`;
  const files: [string, Payload, Expect, string?][] = [
    [
      'a GIF with JavaScript after it (GIFAR-style polyglot)',
      { base64: b64('GIF89a/*\x01\x00\x01\x00\x00\x00\x00*/=alert(1);//;') },
      unsupported,
    ],
    ['a JPEG', { base64: b64('\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01') }, unsupported],
    [
      'a PNG with HTML appended',
      {
        recipe: {
          kind: 'png',
          width: 16,
          height: 12,
          append: b64('<html><script>alert(1)</script></html>'),
        },
      },
      unsupported,
    ],
    [
      'a PNG with a ZIP appended',
      {
        recipe: {
          kind: 'png',
          width: 16,
          height: 12,
          append: b64('PK\x03\x04\x14\x00\x00\x00\x08\x00'),
        },
      },
      unsupported,
    ],
    [
      'a PNG claiming 100000×100000 pixels',
      { recipe: { kind: 'png', width: 100_000, height: 100_000 } },
      unsupported,
    ],
    [
      'a PNG claiming 2^31-1 × 2^31-1 pixels',
      { recipe: { kind: 'png', width: 2 ** 31 - 1, height: 2 ** 31 - 1 } },
      unsupported,
    ],
    ['a PNG claiming 0×0 pixels', { recipe: { kind: 'png', width: 0, height: 0 } }, unsupported],
    [
      'a PNG claiming 2^32-1 pixels wide',
      { recipe: { kind: 'png', width: 2 ** 32 - 1, height: 1 } },
      unsupported,
    ],
    ['the PNG signature alone', { base64: b64('\x89PNG\r\n\x1a\n') }, unsupported],
    [
      'a PNG signature then HTML',
      { base64: b64('\x89PNG\r\n\x1a\n<html><script>alert(1)</script>') },
      unsupported,
    ],
    [
      'a RIFF header that is not WebP',
      { base64: b64('RIFF\x10\x00\x00\x00WAVEfmt ') },
      unsupported,
    ],
    [
      'a WebP header claiming 4 GB',
      { base64: b64('RIFF\xff\xff\xff\xffWEBPVP8 \x00\x00\x00\x00') },
      unsupported,
    ],
    ['a WebP header alone', { base64: b64('RIFF\x04\x00\x00\x00WEBP') }, unsupported],
    [
      'HTML',
      { text: '<!doctype html><html><body><script>alert(1)</script></body></html>' },
      unsupported,
    ],
    [
      'HTML with an svg element inside',
      { text: '<html><body><svg onload="alert(1)"></svg></body></html>' },
      unsupported,
    ],
    [
      'a PDF',
      {
        text: '%PDF-1.7\n1 0 obj<</Type/Catalog/OpenAction<</S/JavaScript/JS(app.alert(1))>>>>endobj',
      },
      unsupported,
    ],
    ['a ZIP', { base64: b64('PK\x03\x04\x14\x00\x00\x00\x08\x00') }, unsupported],
    ['an ELF', { base64: b64('\x7fELF\x02\x01\x01\x00') }, unsupported],
    [
      'XML that is not SVG',
      {
        text: '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>',
      },
      unsupported,
    ],
    [
      'an SVG with a DOCTYPE and entities (billion laughs)',
      {
        text: `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>${svg('<text>&c;</text>')}`,
      },
      unsupported,
    ],
    [
      'an SVG with an external entity (XXE)',
      {
        text: `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg('<text>&x;</text>')}`,
      },
      { ...unsupported, absent: ['root:x:0:0'] },
    ],
    ['an empty SVG element', { text: '<svg/>' }, safe],
    [
      'an SVG nested 10k groups deep',
      {
        recipe: {
          kind: 'nest',
          open: '<g>',
          close: '</g>',
          depth: 10_000,
          inner: '<rect width="1" height="1"/>',
          prefix: '<svg xmlns="http://www.w3.org/2000/svg">',
          suffix: '</svg>',
        },
      },
      safe,
    ],
    [
      'an SVG of 600 KB',
      {
        recipe: {
          kind: 'repeat',
          text: '<rect width="1" height="1"/>',
          times: 22_000,
          prefix: '<svg xmlns="http://www.w3.org/2000/svg">',
          suffix: '</svg>',
        },
      },
      TOO_LARGE,
    ],
    [
      'an SVG with 100k attributes',
      {
        recipe: {
          kind: 'repeat',
          text: ' a=""',
          times: 60_000,
          prefix: '<svg xmlns="http://www.w3.org/2000/svg"',
          suffix: '/>',
        },
      },
      safe,
    ],
    [
      'an SVG in UTF-16',
      {
        base64: Buffer.from(`\ufeff${svg('<rect width="1" height="1"/>')}`, 'utf16le').toString(
          'base64',
        ),
      },
      safe,
    ],
    ['an SVG with invalid UTF-8', { base64: b64(svg('<text>\xff\xfe</text>')) }, safe],
  ];
  const xss: [string, string][] = [
    ['script element', svg('<script>alert(1)</script>')],
    ['script with CDATA', svg('<script><![CDATA[alert(1)]]></script>')],
    [
      'namespaced script',
      svg('<x:script xmlns:x="http://www.w3.org/2000/svg">alert(1)</x:script>'),
    ],
    ['script with external href', svg('<script href="https://evil.example/x.js"/>')],
    ['onload on the root', svg('<rect width="1" height="1"/>', ' onload="alert(1)"')],
    ['onload in upper case', svg('<rect width="1" height="1"/>', ' ONLOAD="alert(1)"')],
    ['onclick on a child', svg('<rect width="1" height="1" onclick="alert(1)"/>')],
    ['onbegin on an animation', svg('<animate onbegin="alert(1)" attributeName="x" dur="1s"/>')],
    [
      'set of href to javascript',
      svg('<a><set attributeName="href" to="javascript:alert(1)"/><text>x</text></a>'),
    ],
    [
      'animate of href to javascript',
      svg('<a><animate attributeName="href" values="javascript:alert(1)"/><text>x</text></a>'),
    ],
    ['a link to javascript', svg('<a href="javascript:alert(1)"><text>x</text></a>')],
    [
      'an xlink to javascript with entities',
      svg('<a xlink:href="jav&#x61;script:alert(1)"><text>x</text></a>'),
    ],
    ['a link to javascript with a tab', svg('<a href="java\tscript:alert(1)"><text>x</text></a>')],
    [
      'a link to data:text/html',
      svg('<a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"><text>x</text></a>'),
    ],
    [
      'foreignObject with HTML',
      svg(
        '<foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="javascript:alert(1)"></iframe></body></foreignObject>',
      ),
    ],
    [
      'an image with an external href',
      svg('<image href="https://evil.example/track.png" width="1" height="1"/>'),
    ],
    ['an image with a file href', svg('<image href="file:///etc/passwd" width="1" height="1"/>')],
    ['a use of an external document', svg('<use href="https://evil.example/sprite.svg#x"/>')],
    [
      'a use of a data SVG',
      svg('<use href="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+#x"/>'),
    ],
    [
      'a style element with @import',
      svg('<style>@import url(https://evil.example/x.css);</style>'),
    ],
    [
      'a style attribute with an external url()',
      svg('<rect width="1" height="1" style="fill:url(https://evil.example/x)"/>'),
    ],
    ['a style element with expression()', svg('<style>rect{width:expression(alert(1))}</style>')],
    [
      'a filter referencing an external document',
      svg('<rect width="1" height="1" filter="url(https://evil.example/f.svg#f)"/>'),
    ],
    ['an iframe', svg('<iframe src="https://evil.example/"/>')],
    ['an embed', svg('<embed src="https://evil.example/x.swf"/>')],
    ['an object', svg('<object data="https://evil.example/x"/>')],
    ['a handler element', svg('<handler type="application/ecmascript">alert(1)</handler>')],
    [
      'a processing instruction for a style sheet',
      `<?xml-stylesheet href="https://evil.example/x.xsl" type="text/xsl"?>${svg('<rect width="1" height="1"/>')}`,
    ],
    [
      'a feImage with an external href',
      svg('<filter id="f"><feImage href="https://evil.example/x.png"/></filter>'),
    ],
    [
      'a backslash-escaped javascript url in CSS',
      svg('<style>rect{background:url(\\6a avascript:alert(1))}</style>'),
    ],
  ];
  const out: HttpEntry[] = [];
  const add = (name: string, body: Payload, expect: Expect, type: string) =>
    out.push({
      id: `logo-files/${slug(name)}-${slug(type)}`,
      note: `logo upload: ${name} as ${type}`,
      kind: 'http',
      method: 'POST',
      path: '/v1/branding/logo',
      as: 'admin',
      headers: { 'content-type': type },
      body,
      expect,
    });
  for (const [name, body, expect] of files) {
    add(name, body, expect, 'image/png');
    add(name, body, expect, 'image/svg+xml');
  }
  for (const [name, text] of xss) add(`an SVG with ${name}`, { text }, safe, 'image/svg+xml');
  for (const [name, text] of xss.slice(0, 10))
    add(`an SVG with ${name}`, { text }, safe, 'text/html');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Collection search filters (spec core-api Errors: `==` with a list, `in` with a scalar: 422).
function filters(): HttpEntry[] {
  const out: HttpEntry[] = [];
  const add = (name: string, body: Payload, expect: Expect, collection = 'hostile') =>
    out.push({
      id: `collection-filters/${slug(name)}-${out.length}`,
      note: `search with ${name}`,
      kind: 'http',
      method: 'POST',
      path: `/v1/collections/${encodeURIComponent(collection)}/search`,
      as: 'admin',
      headers: { 'content-type': 'application/json' },
      body,
      expect,
    });
  const q = (filters: unknown) => ({ json: { query: 'garden', filters } });
  // Refused by the shape: 422.
  add('== with a list', q([{ field: 'topic', operator: '==', value: ['a', 'b'] }]), INVALID);
  add('in with a scalar', q([{ field: 'topic', operator: 'in', value: 'a' }]), INVALID);
  add('in with an empty list', q([{ field: 'topic', operator: 'in', value: [] }]), INVALID);
  for (const op of [
    '=',
    '!=',
    '<',
    '>',
    'like',
    'LIKE',
    'ilike',
    '~',
    '$ne',
    '$gt',
    '$where',
    '$regex',
    'not in',
    'IN',
    ' == ',
    '',
    'contains',
    '@>',
    '||',
    ';--',
  ]) {
    add(
      `operator ${JSON.stringify(op)}`,
      q([{ field: 'topic', operator: op, value: 'a' }]),
      INVALID,
    );
  }
  add('operator a number', q([{ field: 'topic', operator: 1, value: 'a' }]), INVALID);
  add('operator null', q([{ field: 'topic', operator: null, value: 'a' }]), INVALID);
  add('operator an object', q([{ field: 'topic', operator: { $ne: 1 }, value: 'a' }]), INVALID);
  add('value a number', q([{ field: 'topic', operator: '==', value: 1 }]), INVALID);
  add('value null', q([{ field: 'topic', operator: '==', value: null }]), INVALID);
  add('value an object', q([{ field: 'topic', operator: '==', value: { $ne: null } }]), INVALID);
  add('value a list of numbers', q([{ field: 'topic', operator: 'in', value: [1, 2] }]), INVALID);
  add('value a list of lists', q([{ field: 'topic', operator: 'in', value: [['a']] }]), INVALID);
  add(
    'value a list of 101',
    q([{ field: 'topic', operator: 'in', value: Array.from({ length: 101 }, (_, i) => `v${i}`) }]),
    INVALID,
  );
  add(
    'value of 1001 characters',
    q([{ field: 'topic', operator: '==', value: rep('v', 1001) }]),
    INVALID,
  );
  add('field empty', q([{ field: '', operator: '==', value: 'a' }]), INVALID);
  add(
    'field of 201 characters',
    q([{ field: rep('f', 201), operator: '==', value: 'a' }]),
    INVALID,
  );
  add('field a number', q([{ field: 1, operator: '==', value: 'a' }]), INVALID);
  add('field missing', q([{ operator: '==', value: 'a' }]), INVALID);
  add('an extra member', q([{ field: 'topic', operator: '==', value: 'a', or: [] }]), INVALID);
  add(
    '__proto__ in a filter',
    {
      text: '{"query":"garden","filters":[{"field":"topic","operator":"==","value":"a","__proto__":{"polluted":"yes"}}]}',
    },
    INVALID,
  );
  add(
    'constructor.prototype in a filter',
    {
      text: '{"query":"garden","filters":[{"field":"topic","operator":"==","value":"a","constructor":{"prototype":{"polluted":"yes"}}}]}',
    },
    INVALID,
  );
  add('filters an object', q({ field: 'topic', operator: '==', value: 'a' }), INVALID);
  add('filters a string', q("topic == 'a'"), INVALID);
  add('filters null', q(null), INVALID);
  add(
    'filters of 21',
    q(Array.from({ length: 21 }, () => ({ field: 'topic', operator: '==', value: 'a' }))),
    INVALID,
  );
  add(
    'filters of 10k',
    {
      text: `{"query":"garden","filters":[${rep('{"field":"topic","operator":"==","value":"a"},', 9_999)}{"field":"topic","operator":"==","value":"a"}]}`,
    },
    INVALID,
  );
  add(
    'filters nested 10k deep',
    nest(
      '[',
      ']',
      10_000,
      '{"field":"topic","operator":"==","value":"a"}',
      '{"query":"garden","filters":',
      '}',
    ),
    INVALID,
  );
  add(
    'an and/or tree',
    q([{ and: [{ field: 'a', operator: '==', value: 'b' }, { or: [] }] }]),
    INVALID,
  );
  add('the old filter string', { json: { query: 'garden', filter: "topic == 'a'" } }, INVALID);
  add('query empty', { json: { query: '', filters: [] } }, INVALID);
  add('query of 8001 characters', { json: { query: rep('q', 8001) } }, INVALID);
  // Valid shapes carrying injection strings: judged like any value (no collection here: 404).
  const injections = [
    "' OR '1'='1",
    "'; DROP TABLE files; --",
    "topic' = 'a' OR metadata ? 'x",
    '") OR 1=1 --',
    "a'||pg_sleep(5)--",
    '$1',
    '%',
    '_',
    '\\',
    '\u0000',
    'a\u0000b',
    '{"$ne": null}',
    '${jndi:ldap://x/a}',
    '{{7*7}}',
    '<script>alert(1)</script>',
    "metadata->>'owner'",
    '../../etc/passwd',
    "a' AND (SELECT 1 FROM pg_shadow) --",
    '*',
    "?|array['a']",
  ];
  for (const s of injections) {
    // A NUL in a string: refused before anything reads it (docs/adr/0042).
    const expect: Expect = s.includes('\u0000')
      ? INVALID
      : { status: 404, code: 'collection_not_found' };
    add(
      `an injection in the field: ${JSON.stringify(s)}`,
      q([{ field: s, operator: '==', value: 'a' }]),
      expect,
    );
    add(
      `an injection in the value: ${JSON.stringify(s)}`,
      q([{ field: 'topic', operator: 'in', value: [s, 'b'] }]),
      expect,
    );
  }
  for (const name of [
    "x' OR '1'='1",
    "';--",
    '../../secrets',
    'a\u0000b',
    '*',
    "_';--",
    '%',
    'x'.repeat(300),
  ]) {
    add(
      `an injection in the collection name: ${JSON.stringify(name)}`,
      q([]),
      { status: [400, 404, 422] },
      name,
    );
  }
  return out;
}

const GROUPS: Record<string, Entry[]> = {
  'json-bodies': jsonBodies(),
  headers: headers(),
  paths: paths(),
  'remote-mcp-addresses': addresses(),
  'jsonrpc-frames': jsonrpc(),
  'stt-websocket-frames': speech(),
  'logo-files': logos(),
  'collection-filters': filters(),
};

let total = 0;
for (const [name, entries] of Object.entries(GROUPS)) {
  const ids = new Set(entries.map((e) => e.id));
  if (ids.size !== entries.length) throw new Error(`${name}: duplicate ids`);
  writeFileSync(
    join(HERE, `${name}.jsonl`),
    entries.map((e) => JSON.stringify(e)).join('\n') + '\n',
  );
  total += entries.length;
  process.stdout.write(`${name}: ${entries.length}\n`);
}
process.stdout.write(`total: ${total}\n`);
