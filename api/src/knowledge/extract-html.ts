import { parse } from 'parse5';
import { normalizeLines } from './text.js';

/** Elements whose content a reader never sees. */
const HIDDEN = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'select',
  'button',
]);
/** Elements that start a new paragraph. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tr',
  'ul',
]);

/** The part of parse5's default tree that is read. */
interface HtmlNode {
  nodeName: string;
  value?: string;
  childNodes?: HtmlNode[];
}

/**
 * The text a reader sees in an HTML page: parse5 (the WHATWG parser jsdom uses, without a DOM
 * or scripts: nothing runs, nothing is fetched) builds the tree, and one walk with an explicit
 * stack (no recursion, so nesting depth cannot overflow it) collects text. Scripts, styles,
 * `<head>`, templates and embedded objects are dropped; block elements and `<br>` break lines;
 * table cells are separated by a tab; `<pre>` keeps its line breaks; elsewhere runs of white
 * space are one space, as a browser shows them.
 */
export function htmlText(html: string): string {
  const doc = parse(html) as unknown as HtmlNode;
  const out: string[] = [];
  // Entries: a node to enter, or a marker to leave an element.
  const stack: ({ node: HtmlNode } | { leave: string })[] = [{ node: doc }];
  let pre = 0;
  while (stack.length > 0) {
    const top = stack.pop() as { node: HtmlNode } | { leave: string };
    if ('leave' in top) {
      if (top.leave === 'pre') pre -= 1;
      if (BLOCK.has(top.leave)) out.push('\n\n');
      continue;
    }
    const { node } = top;
    const name = node.nodeName;
    if (name === '#text') {
      const text = node.value ?? '';
      out.push(pre > 0 ? text : text.replace(/\s+/g, ' '));
      continue;
    }
    if (name === '#comment' || HIDDEN.has(name)) continue;
    if (name === 'br') out.push('\n');
    else if (name === 'td' || name === 'th') out.push('\t');
    else if (BLOCK.has(name)) out.push('\n\n');
    if (name === 'pre') pre += 1;
    stack.push({ leave: name });
    const children = node.childNodes ?? [];
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push({ node: children[i] as HtmlNode });
  }
  return normalizeLines(
    out
      .join('')
      .replace(/[ \t]*\n[ \t]*/g, '\n')
      .replace(/\t{2,}/g, '\t'),
  );
}
