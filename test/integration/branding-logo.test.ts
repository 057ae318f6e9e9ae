import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  GIF,
  JPEG_START,
  makePng,
  PLAIN_SVG,
  pngChunk,
  WEBP,
} from '../../api/src/platform/logo-samples.js';
import {
  BENIGN_IDS,
  SVG_XSS_VECTORS,
  unsafeMarkers,
} from '../../api/src/platform/svg-xss-corpus.js';
import {
  assertCode,
  keycloak,
  ORG_SCOPE,
  queryRows,
  startTestApi,
  tokenFor,
  type DevUser,
  type TestApi,
} from './api-helpers.js';

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  text: string;
  json: () => unknown;
}

describe('branding logo: GET, POST, reset per organization', function () {
  let api: TestApi;
  let acme: string;
  const other = randomUUID();
  const tokens = new Map<DevUser, string>();

  /** A request as a dev user in an organization, with a raw body (the logo's bytes). */
  async function send(
    user: DevUser,
    method: string,
    path: string,
    opts: { org?: string; body?: Buffer; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    let token = tokens.get(user);
    if (token === undefined) {
      token = await tokenFor(user, ORG_SCOPE);
      tokens.set(user, token);
    }
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-aiplane-organization': opts.org ?? acme,
        ...opts.headers,
      },
      body: opts.body,
    });
    const body = Buffer.from(await res.arrayBuffer());
    const text = body.toString('utf8');
    return {
      status: res.status,
      headers: res.headers,
      body,
      text,
      json: () => JSON.parse(text) as unknown,
    };
  }
  const upload = (body: Buffer, contentType = 'application/octet-stream', org?: string) =>
    send('admin', 'POST', '/v1/branding/logo', {
      org,
      body,
      headers: { 'content-type': contentType },
    });
  const read = (org?: string, headers?: Record<string, string>) =>
    send('member', 'GET', '/v1/branding/logo', { org, headers });
  const reset = (org?: string) => send('admin', 'POST', '/v1/branding/logo/reset', { org });

  before(async function () {
    api = await startTestApi('branding-logo');
    acme = keycloak().organization.id;
  });

  after(async function () {
    for (const org of [acme, other]) if (api) await reset(org);
    await api?.close();
  });

  it('answers 404 branding_logo_not_found until a logo is uploaded', async function () {
    assert.equal((await reset()).status, 204);
    const r = await read();
    assert.equal(r.status, 404, r.text);
    assert.equal((r.json() as { error: { code: string } }).error.code, 'branding_logo_not_found');
  });

  const rasters: [string, Buffer, string][] = [
    ['a PNG', makePng(16, 12), 'image/png'],
    ['a lossy WebP', WEBP.lossy, 'image/webp'],
    ['a lossless WebP', WEBP.lossless, 'image/webp'],
    ['an extended WebP with alpha', WEBP.extended, 'image/webp'],
  ];
  for (const [what, bytes, type] of rasters) {
    it(`stores ${what} claimed as image/svg+xml and serves the exact bytes as ${type}`, async function () {
      const up = await upload(bytes, 'image/svg+xml');
      assert.equal(up.status, 200, up.text);
      const info = up.json() as {
        content_type: string;
        bytes: number;
        width: number;
        etag: string;
      };
      assert.deepEqual([info.content_type, info.bytes, info.width], [type, bytes.length, 16]);
      const r = await read();
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.equals(bytes), 'the served bytes differ from the upload');
      assert.equal(r.headers.get('content-type'), type);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(r.headers.get('content-security-policy'), null);
      assert.equal(r.headers.get('etag'), info.etag);
      assert.equal(up.headers.get('etag'), info.etag);
    });
  }

  it('serves a sanitised SVG as image/svg+xml with nosniff and CSP sandbox, and 304 on If-None-Match', async function () {
    const svg = Buffer.from(
      PLAIN_SVG.replace('<rect id="mark"', '<rect id="mark" onclick="alert(1)"'),
    );
    const up = await upload(svg, 'text/plain');
    assert.equal(up.status, 200, up.text);
    assert.deepEqual((up.json() as { removed: string[] }).removed, ['onclick']);
    const r = await read();
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    const csp = (r.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
    assert.ok(csp.includes('sandbox') && csp.includes("default-src 'none'"), csp.join('; '));
    assert.ok(r.text.includes('<rect id="mark" width="40"'), r.text);
    assert.ok(!r.text.includes('onclick'), r.text);
    const etag = r.headers.get('etag') ?? '';
    assert.match(etag, /^"[0-9a-f]{64}"$/);
    const again = await read(acme, { 'if-none-match': `"x", W/${etag}` });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.get('etag'), etag);
    const changed = await read(acme, { 'if-none-match': '"other"' });
    assert.equal(changed.status, 200);
  });

  it('accepts exactly 512 KB and answers 413 request_too_large past it, keeping the logo', async function () {
    const before = (await read()).body;
    // A valid PNG padded to the limit by an ancillary chunk.
    const png = makePng(4, 4);
    const filler = 512 * 1024 - png.length - 12;
    const exact = Buffer.concat([
      png.subarray(0, 33),
      pngChunk('zzZz', Buffer.alloc(filler, 0x61)),
      png.subarray(33),
    ]);
    assert.equal(exact.length, 512 * 1024);
    assert.equal((await upload(exact)).status, 200);
    const tooBig = Buffer.concat([exact.subarray(0, 33), Buffer.alloc(1), exact.subarray(33)]);
    assertCode(await upload(tooBig), 413, 'request_too_large');
    assertCode(await upload(Buffer.alloc(5 * 1024 * 1024, 0x20)), 413, 'request_too_large');
    assert.ok((await read()).body.equals(exact));
    await upload(before);
  });

  const unsupported: [string, Buffer, string][] = [
    ['a GIF', GIF, 'image/gif'],
    ['a JPEG', JPEG_START, 'image/png'],
    ['plain text', Buffer.from('just a name'), 'image/svg+xml'],
    [
      'HTML claimed as SVG',
      Buffer.from('<html><body><script>alert(1)</script></body></html>'),
      'image/svg+xml',
    ],
    [
      'an SVG with a DOCTYPE',
      Buffer.from('<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg"/>'),
      'image/svg+xml',
    ],
    ['a PNG with appended data', Buffer.concat([makePng(), Buffer.from('<svg/>')]), 'image/png'],
    ['a truncated WebP', WEBP.lossy.subarray(0, 60), 'image/webp'],
    ['an empty body', Buffer.alloc(0), 'image/png'],
  ];
  for (const [what, bytes, claimed] of unsupported) {
    it(`answers 415 unsupported_media_type for ${what}, keeping the logo`, async function () {
      const before = await read();
      assertCode(await upload(bytes, claimed), 415, 'unsupported_media_type');
      assert.ok((await read()).body.equals(before.body));
    });
  }

  it('takes a JSON-claimed body as raw bytes too', async function () {
    const png = makePng(8, 8);
    const r = await upload(png, 'application/json');
    assert.equal(r.status, 200, r.text);
    assert.ok((await read()).body.equals(png));
  });

  it('needs can_edit_config to upload or reset, and can_access_api to read', async function () {
    const png = makePng(2, 2);
    const asMember = await send('member', 'POST', '/v1/branding/logo', { body: png });
    assertCode(asMember, 403, 'permission_denied');
    assertCode(await send('member', 'POST', '/v1/branding/logo/reset'), 403, 'permission_denied');
    assertCode(await send('outsider', 'GET', '/v1/branding/logo'), 403, 'permission_denied');
    assertCode(
      await send('outsider', 'POST', '/v1/branding/logo', { body: png }),
      403,
      'permission_denied',
    );
    assert.equal((await read()).status, 200);
  });

  it('keeps each organization’s logo apart, and a reset removes only its own', async function () {
    const mine = makePng(3, 3);
    const theirs = WEBP.lossless;
    assert.equal((await upload(mine)).status, 200);
    assert.equal((await upload(theirs, 'image/webp', other)).status, 200);
    assert.ok((await read()).body.equals(mine));
    const r = await send('admin', 'GET', '/v1/branding/logo', { org: other });
    assert.ok(r.body.equals(theirs));
    assert.equal((await reset(other)).status, 204);
    assertCode(
      await send('admin', 'GET', '/v1/branding/logo', { org: other }),
      404,
      'branding_logo_not_found',
    );
    assert.ok((await read()).body.equals(mine));
    const rows = await queryRows<{ organization_id: string; content_type: string; etag: string }>(
      api.databaseUrl,
      'select organization_id, content_type, etag from branding_logos',
    );
    assert.deepEqual(
      rows.map((row) => [row.organization_id, row.content_type]),
      [[acme, 'image/png']],
    );
  });

  it(`stores no script path for any of the ${SVG_XSS_VECTORS.length} SVG XSS vectors, keeping the benign parts`, async function () {
    for (const vector of SVG_XSS_VECTORS) {
      const up = await upload(Buffer.from(vector.svg), 'image/svg+xml');
      if (vector.refused) {
        assertCode(up, 415, 'unsupported_media_type');
        continue;
      }
      assert.equal(up.status, 200, `${vector.name}: ${up.text}`);
      const served = await read();
      assert.match(served.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      assert.deepEqual(unsafeMarkers(served.text), [], `${vector.name}: ${served.text}`);
      for (const id of BENIGN_IDS) {
        assert.ok(served.text.includes(`id="${id}"`), `${vector.name}: ${id} is gone`);
      }
      const [row] = await queryRows<{ content: Buffer }>(
        api.databaseUrl,
        'select content from branding_logos where organization_id = $1',
        [acme],
      );
      assert.ok(
        row?.content.equals(served.body),
        `${vector.name}: stored bytes differ from served`,
      );
    }
  });
});
