// A program that compiles this file from another workspace must see jsdom's declaration too.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- an ambient module has no import
/// <reference path="./jsdom.d.ts" />
import { ApiError } from '@aiplane/lib/errors';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A raster image embedded in an `<image>`: base64 PNG, JPEG, GIF or WebP, nothing else. */
const RASTER_DATA_URL = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$/;
/** A same-document reference (`#id`), the only kind of `href` a logo keeps. */
const FRAGMENT = /^#[A-Za-z_][\w.:-]*$/;
/** Elements that never survive, whatever the sanitiser's allowlist says (checked afterwards). */
const FORBIDDEN_ELEMENTS = new Set([
  'script',
  'foreignobject',
  'iframe',
  'embed',
  'object',
  'handler',
  'listener',
  'animate',
  'animatecolor',
  'animatemotion',
  'animatetransform',
  'set',
  'discard',
]);

// The few DOM shapes used here, declared locally: the DOM type library (which jsdom's typings
// pull in) would change global types such as ReadableStream for every workspace that imports
// the API's sources.
interface DomAttr {
  name: string;
  localName: string;
  value: string;
}
interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  textContent: string | null;
  parentNode: DomNode | null;
  replaceChild(node: DomNode, child: DomNode): unknown;
}
interface DomElement extends DomNode {
  localName: string;
  namespaceURI: string | null;
  attributes: Iterable<DomAttr>;
  firstElementChild: DomElement | null;
  childElementCount: number;
  removeAttributeNode(attr: DomAttr): unknown;
  remove(): void;
  querySelectorAll(selector: string): Iterable<DomElement>;
  getElementsByTagNameNS(namespace: string, name: string): { length: number };
}
interface DomDocument {
  documentElement: DomElement;
  createTreeWalker(root: DomNode, whatToShow: number): { nextNode(): DomNode | null };
  createTextNode(text: string): DomNode;
}
interface DomWindow {
  DOMParser: new () => { parseFromString(text: string, type: string): DomDocument };
  XMLSerializer: new () => { serializeToString(node: DomNode): string };
}
interface Purifier {
  sanitize(node: DomNode, config: Record<string, unknown>): DomElement;
  removed: { element?: DomNode; attribute?: DomAttr | null }[];
}
const ELEMENT_NODE = 1;
const CDATA_SECTION_NODE = 4;
const PROCESSING_INSTRUCTION_NODE = 7;
const SHOW_ALL = 0xffffffff;
const SHOW_CDATA_SECTION = 0x8;

export interface SanitizedSvg {
  /** The sanitised document, UTF-8: exactly what is stored and served. */
  svg: Buffer;
  /** What was taken out (`<script>`, `onload`, `href`, …), each name once. */
  removed: string[];
}

const refuse = (message: string): never => {
  throw new ApiError('unsupported_media_type', message);
};

/** Without control characters and white space, lower-cased: how browsers read a URL scheme. */
const squeezed = (value: string) =>
  // eslint-disable-next-line no-control-regex
  value.replace(/[\u0000-\u0020\u007f-\u00a0]/g, '').toLowerCase();

/**
 * The targets of every `url(…)` in a CSS text or attribute value, read in one pass (a regex
 * with a lazy group was quadratic on `url(url(url(…`); undefined when one is not closed.
 */
export function urlTargets(text: string): string[] | undefined {
  const lower = text.toLowerCase();
  const targets: string[] = [];
  for (let i = lower.indexOf('url'); i !== -1; i = lower.indexOf('url', i)) {
    let open = i + 3;
    while (open < text.length && /\s/.test(text.charAt(open))) open++;
    if (text.charAt(open) !== '(') {
      i += 3;
      continue;
    }
    const close = text.indexOf(')', open + 1);
    if (close === -1) return undefined;
    let target = text.slice(open + 1, close).trim();
    const quote = target.charAt(0);
    if ((quote === '"' || quote === "'") && target.length > 1 && target.endsWith(quote)) {
      target = target.slice(1, -1).trim();
    }
    targets.push(target);
    i = close + 1;
  }
  return targets;
}

/**
 * Why a CSS text (a `<style>` element or a `style`/presentation attribute) is unsafe, or
 * undefined: escapes (which could spell anything), `@import`, `url(…)` other than to `#id`,
 * `image-set`, `src()`, script URLs and legacy script hooks. Checked with and without comments.
 */
export function unsafeCss(text: string): string | undefined {
  for (const css of [text, text.replace(/\/\*[\s\S]*?\*\//g, '')]) {
    const s = squeezed(css);
    if (css.includes('\\')) return 'a CSS escape';
    if (s.includes('@import')) return '@import';
    if (/(?:^|[^a-z-])(?:-webkit-)?image-set\(|(?:^|[^a-z-])src\(/.test(s)) return 'image-set()';
    if (/expression\(|javascript:|vbscript:|-moz-binding|behavior:/.test(s)) {
      return 'a script in CSS';
    }
    const targets = urlTargets(css);
    // `url(` that could not be read (unclosed, or spelled so the scan missed it) is refused too.
    if (targets === undefined || (s.match(/url\(/g) ?? []).length !== targets.length) {
      return 'an unreadable url()';
    }
    const external = targets.find((t) => !FRAGMENT.test(t));
    if (external !== undefined) return `url(${external.slice(0, 40)})`;
  }
  return undefined;
}

/** Why an attribute may not stay on an element, or undefined. */
function unsafeAttribute(element: DomElement, attr: DomAttr): string | undefined {
  const name = attr.name.toLowerCase();
  const value = attr.value;
  if (name.startsWith('on')) return 'an event handler';
  if (attr.localName.toLowerCase() === 'href') {
    if (FRAGMENT.test(value.trim())) return undefined;
    if (element.localName === 'image' && RASTER_DATA_URL.test(value.trim())) return undefined;
    return 'a reference outside the document';
  }
  const s = squeezed(value);
  if (/javascript:|vbscript:|data:/.test(s)) return 'a script or data URL';
  // Browsers read presentation attributes (fill, filter, mask, …) as CSS, escapes included:
  // `fill="u\\72l(https://…)"` is a url(). Any backslash makes a value CSS to check (and refuse).
  if (name === 'style' || s.includes('url(') || value.includes('\\')) return unsafeCss(value);
  return undefined;
}

/**
 * Our own rules, on the sanitiser's output: attributes and `<style>` elements that break
 * them are removed. Answers what was removed.
 */
function stripUnsafe(root: DomElement): string[] {
  const removed: string[] = [];
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (el.localName === 'style' && el.namespaceURI === SVG_NS) {
      if (unsafeCss(el.textContent ?? '') !== undefined) {
        el.remove();
        removed.push('<style>');
      }
      continue;
    }
    for (const attr of [...el.attributes]) {
      if (unsafeAttribute(el, attr) !== undefined) {
        el.removeAttributeNode(attr);
        removed.push(attr.name);
      }
    }
  }
  return removed;
}

/**
 * The independent check of what will be served, read back the way a browser reads an
 * `image/svg+xml` document: every rule must hold, or the upload is refused (a sanitiser bug
 * must not become a stored script).
 */
function verify(doc: DomDocument): void {
  const root = doc.documentElement;
  if (root.namespaceURI !== SVG_NS || root.localName !== 'svg') {
    refuse('the sanitised SVG has no <svg> root');
  }
  const walker = doc.createTreeWalker(root, SHOW_ALL);
  for (let node: DomNode | null = root; node; node = walker.nextNode()) {
    if (node.nodeType === PROCESSING_INSTRUCTION_NODE || node.nodeType === CDATA_SECTION_NODE) {
      refuse('the sanitised SVG still has a processing instruction or CDATA section');
    }
    if (node.nodeType !== ELEMENT_NODE) continue;
    const el = node as DomElement;
    if (el.namespaceURI !== SVG_NS) refuse(`the sanitised SVG still has <${el.nodeName}>`);
    if (FORBIDDEN_ELEMENTS.has(el.localName.toLowerCase())) {
      refuse(`the sanitised SVG still has <${el.localName}>`);
    }
    if (el.localName === 'style' && unsafeCss(el.textContent ?? '') !== undefined) {
      refuse('the sanitised SVG still has unsafe CSS');
    }
    for (const attr of el.attributes) {
      const why = unsafeAttribute(el, attr);
      if (why !== undefined) refuse(`the sanitised SVG still has ${attr.name} (${why})`);
    }
  }
}

interface Dom {
  window: DomWindow;
  purify: Purifier;
}
let dom: Promise<Dom> | undefined;

/**
 * One jsdom window and DOMPurify instance per process, loaded on the first SVG: jsdom is large
 * and most processes never sanitise anything. The window runs no scripts and loads nothing.
 */
function loadDom(): Promise<Dom> {
  dom ??= (async () => {
    // jsdom through `default` (module.exports): a bundle chunk of a CommonJS module has no
    // named exports.
    const [{ default: jsdom }, { default: createDOMPurify }] = await Promise.all([
      import('jsdom'),
      import('dompurify'),
    ]);
    const { window } = new jsdom.JSDOM('');
    const purify = createDOMPurify(window as Parameters<typeof createDOMPurify>[0]);
    return { window: window as DomWindow, purify: purify as unknown as Purifier };
  })();
  return dom;
}

/** Bounds on an SVG's shape, checked before any parser sees it (docs/adr/0020). */
export const SVG_LIMITS = { elements: 2000, depth: 64, attributesPerElement: 64 } as const;

/** Where `end` next occurs from `from`, past it; the text's end when it does not. */
const skipPast = (text: string, from: number, end: string) => {
  const at = text.indexOf(end, from);
  return at === -1 ? text.length : at + end.length;
};

/**
 * Why an SVG's shape is out of bounds, or undefined. One linear pass over the markup (quoted
 * attribute values, comments, CDATA and processing instructions skipped as XML does), so
 * hostile markup never reaches jsdom and DOMPurify, whose work grows faster than the input (a
 * 512 KB body of empty elements took minutes, deep nesting overflowed the stack).
 */
export function shapeViolation(text: string): string | undefined {
  let elements = 0;
  let depth = 0;
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length) {
    if (text.startsWith('<!--', i)) i = skipPast(text, i + 4, '-->');
    else if (text.startsWith('<![CDATA[', i)) i = skipPast(text, i + 9, ']]>');
    else if (text.startsWith('<?', i) || text.startsWith('<!', i)) i = skipPast(text, i + 2, '>');
    else if (text.startsWith('</', i)) {
      depth = Math.max(0, depth - 1);
      i = skipPast(text, i + 2, '>');
    } else {
      // A start tag: attributes up to the first `>` outside quotes.
      let attributes = 0;
      let quote = '';
      let j = i + 1;
      let last = '';
      for (; j < text.length; j++) {
        const c = text.charAt(j);
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '=') attributes++;
        else if (c === '>') break;
        if (!/\s/.test(c)) last = c;
      }
      if (++elements > SVG_LIMITS.elements) {
        return `an SVG logo may have at most ${SVG_LIMITS.elements} elements`;
      }
      if (attributes > SVG_LIMITS.attributesPerElement) {
        return `an SVG element may have at most ${SVG_LIMITS.attributesPerElement} attributes`;
      }
      if (last !== '/' && ++depth > SVG_LIMITS.depth) {
        return `SVG elements may nest at most ${SVG_LIMITS.depth} deep`;
      }
      i = j + 1;
    }
    i = text.indexOf('<', i);
  }
  return undefined;
}

/**
 * Sanitises an SVG logo (docs/adr/0020). Refused (415) unless it is UTF-8, well-formed XML,
 * without a DOCTYPE or entity declarations, whose root is `<svg>` in the SVG namespace. Then
 * DOMPurify's SVG profile removes scripts, event handlers, `foreignObject`, animation and
 * anything not on its allowlist; our rules remove `href`s other than `#id` (or a raster data
 * URL on `<image>`), script and data URLs, and CSS that imports or loads anything. The result
 * is serialised as XML and checked again, independently, before it is accepted.
 */
export async function sanitizeSvg(bytes: Uint8Array): Promise<SanitizedSvg> {
  let text = '';
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    refuse('an SVG logo must be UTF-8 text');
  }
  if (/<!DOCTYPE|<!ENTITY|<!ATTLIST|<!ELEMENT/i.test(text)) {
    refuse('an SVG logo may not have a DOCTYPE or entity declarations');
  }
  const shape = shapeViolation(text);
  if (shape) refuse(shape);
  const { window, purify } = await loadDom();
  const parsed = new window.DOMParser().parseFromString(text, 'image/svg+xml');
  const root = parsed.documentElement;
  if (
    root.getElementsByTagNameNS('*', 'parsererror').length > 0 ||
    root.localName === 'parsererror'
  ) {
    refuse('the SVG is not well-formed XML');
  }
  if (root.namespaceURI !== SVG_NS || root.localName !== 'svg') {
    refuse(
      'the root element must be <svg> in the SVG namespace (xmlns="http://www.w3.org/2000/svg")',
    );
  }
  // CDATA sections (common in <style>) cannot enter the HTML document DOMPurify works in:
  // their text is kept as text, which the XML serialiser escapes.
  const cdata = parsed.createTreeWalker(root, SHOW_CDATA_SECTION);
  const sections: DomNode[] = [];
  for (let n = cdata.nextNode(); n; n = cdata.nextNode()) sections.push(n);
  for (const n of sections) n.parentNode?.replaceChild(parsed.createTextNode(n.nodeValue ?? ''), n);

  // The parsed tree itself goes in (no second parse as HTML): DOMPurify checks the very
  // elements and attributes a browser would see.
  const body = purify.sanitize(root, {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_TAGS: ['use'],
    // Its SVG profile allows animateTransform and the like: no logo animation (docs/adr/0020).
    FORBID_TAGS: [...FORBIDDEN_ELEMENTS],
    RETURN_DOM: true,
  });
  const removed = new Set<string>();
  for (const r of purify.removed) {
    if (r.attribute) removed.add(r.attribute.name);
    // The wrapper DOMPurify parses into and comments are not the logo's content.
    else if (r.element && r.element.nodeType === ELEMENT_NODE && r.element.nodeName !== 'BODY') {
      removed.add(`<${r.element.nodeName}>`);
    }
  }
  const svg = body.firstElementChild;
  if (body.childElementCount !== 1 || svg?.namespaceURI !== SVG_NS || svg.localName !== 'svg') {
    return refuse('nothing of the SVG is left after sanitising');
  }
  for (const name of stripUnsafe(svg)) removed.add(name);
  const out = new window.XMLSerializer().serializeToString(svg);
  verify(new window.DOMParser().parseFromString(out, 'image/svg+xml'));
  return { svg: Buffer.from(out, 'utf8'), removed: [...removed] };
}
