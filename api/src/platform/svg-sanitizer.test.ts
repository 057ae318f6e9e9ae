import assert from 'node:assert/strict';
import { PLAIN_SVG } from './logo-samples.js';
import { sanitizeSvg, shapeViolation, SVG_LIMITS, unsafeCss, urlTargets } from './svg-sanitizer.js';
import { BENIGN_IDS, SVG_XSS_VECTORS, unsafeMarkers } from './svg-xss-corpus.js';

const sanitized = async (svg: string) => (await sanitizeSvg(Buffer.from(svg))).svg.toString();

describe('SVG sanitiser', function () {
  it('keeps a normal logo: shapes, gradient, style sheet, #fragment use, text', async function () {
    const out = await sanitized(PLAIN_SVG);
    for (const part of [
      'viewBox="0 0 120 40"',
      '<linearGradient id="g"',
      'fill="url(#g)"',
      'xlink:href="#mark"',
      'font-family: Inter',
      '>Acme &amp; Co</text>',
    ]) {
      assert.ok(out.includes(part), `${part} is gone: ${out}`);
    }
    assert.deepEqual(unsafeMarkers(out), []);
    assert.equal((await sanitizeSvg(Buffer.from(PLAIN_SVG))).removed.length, 0);
  });

  it('keeps a base64 raster on <image> and drops any other href', async function () {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    const out = await sanitized(
      `<svg xmlns="http://www.w3.org/2000/svg"><image href="${png}"/><image href="https://x.example/a.png"/><a href="https://x.example/"><rect/></a></svg>`,
    );
    assert.ok(out.includes(`<image href="${png}"/>`), out);
    assert.equal(out.match(/href=/g)?.length, 1, out);
  });

  const refusals: [string, string, RegExp][] = [
    ['not well-formed XML', '<svg xmlns="http://www.w3.org/2000/svg"><g></svg>', /well-formed/],
    [
      'trailing markup after the root',
      '<svg xmlns="http://www.w3.org/2000/svg"/><script/>',
      /well-formed/,
    ],
    ['a DOCTYPE', '<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg"/>', /DOCTYPE/],
    ['a root that is not svg', '<html xmlns="http://www.w3.org/1999/xhtml"/>', /root element/],
    ['svg outside the SVG namespace', '<svg><rect/></svg>', /root element/],
  ];
  for (const [what, svg, message] of refusals) {
    it(`refuses ${what} with 415`, async function () {
      await assert.rejects(sanitizeSvg(Buffer.from(svg)), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'unsupported_media_type');
        assert.match(err.message, message);
        return true;
      });
    });
  }

  it('refuses text that is not UTF-8', async function () {
    const latin1 = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg"><text>\xe9</text></svg>',
      'latin1',
    );
    await assert.rejects(sanitizeSvg(latin1), /UTF-8/);
  });

  it('finds unsafe CSS: imports, loads, escapes, scripts', function () {
    for (const css of [
      '@import "x.css";',
      '@IMPORT url(x)',
      'a{fill:url(https://x/y)}',
      'a{fill:url( "//x/y" )}',
      'a{fill:u\\72l(x)}',
      'a{background:image-set("x.png" 1x)}',
      'a{width:expression(alert(1))}',
      'a{fill:url(javascript:alert(1))}',
      'a{fill:url(#ok)} b{fill:url(x}',
    ]) {
      assert.notEqual(unsafeCss(css), undefined, css);
    }
    assert.equal(unsafeCss('.a{fill:url(#g);stroke:url("#h")} .b>c{opacity:.5}'), undefined);
  });

  it(`has at least 30 XSS vectors in its corpus (${SVG_XSS_VECTORS.length})`, function () {
    assert.ok(SVG_XSS_VECTORS.length >= 30);
  });

  for (const vector of SVG_XSS_VECTORS) {
    it(`${vector.refused ? 'refuses' : 'neutralises'} ${vector.name}`, async function () {
      if (vector.refused) {
        await assert.rejects(sanitizeSvg(Buffer.from(vector.svg)), {
          code: 'unsupported_media_type',
        });
        return;
      }
      assert.notDeepEqual(unsafeMarkers(vector.svg), [], 'the vector is not unsafe to begin with');
      const out = await sanitized(vector.svg);
      assert.deepEqual(unsafeMarkers(out), [], out);
      for (const id of BENIGN_IDS) assert.ok(out.includes(`id="${id}"`), `${id} is gone: ${out}`);
    });
  }

  describe('hostile shapes and CSS (security review, issue 16)', function () {
    const svg = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg">${inner}</svg>`;

    it('reads url() targets in one pass, and refuses an unclosed or piled-up url(', function () {
      assert.deepEqual(urlTargets('fill: url(#a); stroke: URL ( "#b" )'), ['#a', '#b']);
      assert.equal(urlTargets('url(#a'), undefined);
      // 16,000 nested `url(` once took seconds per check; now refused at once.
      assert.equal(unsafeCss('url('.repeat(16_000)), 'an unreadable url()');
      assert.match(unsafeCss(`url('${'url('.repeat(16_000)})`) ?? '', /url/);
    });

    it('bounds elements, nesting and attributes before any parser runs', function () {
      const { elements, depth, attributesPerElement } = SVG_LIMITS;
      assert.equal(shapeViolation(svg('<g/>'.repeat(elements - 1))), undefined);
      assert.match(shapeViolation(svg('<x/>'.repeat(elements))) ?? '', /at most 2000 elements/);
      assert.match(
        shapeViolation(svg('<g>'.repeat(depth) + '</g>'.repeat(depth))) ?? '',
        /nest at most/,
      );
      assert.equal(
        shapeViolation(svg('<g>'.repeat(depth - 1) + '</g>'.repeat(depth - 1))),
        undefined,
      );
      // A quoted "/>" does not make an open tag look self-closing.
      assert.match(shapeViolation(svg('<g a="/>">'.repeat(depth + 1))) ?? '', /nest at most/);
      const attrs = Array.from({ length: attributesPerElement + 1 }, (_, i) => `a${i}="1"`);
      assert.match(shapeViolation(svg(`<rect ${attrs.join(' ')}/>`)) ?? '', /attributes/);
      // Markup in comments and CDATA is text, as XML reads it.
      assert.equal(shapeViolation(svg(`<!-- ${'<g>'.repeat(500)} -->`)), undefined);
    });

    it('refuses a hostile shape with 415 before sanitising it', async function () {
      await assert.rejects(
        sanitizeSvg(Buffer.from(svg('<x/>'.repeat(32_000)))),
        (err: Error & { code?: string }) => err.code === 'unsupported_media_type',
      );
      await assert.rejects(
        sanitizeSvg(Buffer.from(svg('<g>'.repeat(5000) + '</g>'.repeat(5000)))),
        (err: Error & { code?: string }) => err.code === 'unsupported_media_type',
      );
    });

    it('treats a presentation attribute with a backslash as CSS: an escaped url() is removed', async function () {
      const out = await sanitized(
        svg('<rect id="r" fill="u\\72l(https://evil.example/p.svg#g)" width="5" height="5"/>'),
      );
      assert.ok(!out.includes('evil.example'), out);
      assert.ok(out.includes('id="r"'), out);
    });
  });
});
