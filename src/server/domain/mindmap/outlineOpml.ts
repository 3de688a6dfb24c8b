import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BridgeError } from '../../errors';
import type { OutlineNode, SetOutline } from './outlineTree';

/** Attribute text: the five XML escapes, and line breaks as character references (an attribute's raw newline reads back as a space). */
function attr(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

/** OPML 2.0: `text` the card's title, `_note` its texts (blank-line separated), `_page` an excerpt's page. */
export function toOpml(outline: SetOutline): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<opml version="2.0">',
    `  <head>`,
    `    <title>${attr(outline.title)}</title>`,
    '  </head>',
    '  <body>',
  ];
  const write = (n: OutlineNode, indent: string) => {
    const note = n.texts.length ? ` _note="${attr(n.texts.join('\n\n'))}"` : '';
    const page = n.page !== undefined ? ` _page="${n.page}"` : '';
    const open = `${indent}<outline text="${attr(n.title)}"${note}${page}`;
    if (!n.children.length) return void out.push(`${open}/>`);
    out.push(`${open}>`);
    for (const c of n.children) write(c, `${indent}  `);
    out.push(`${indent}</outline>`);
  };
  // Recursion is bounded by the tree's depth; pre-order keeps siblings in position order.
  for (const r of outline.roots) write(r, '    ');
  out.push('  </body>', '</opml>', '');
  return out.join('\n');
}

const invalid = (message: string, details: Record<string, unknown> = {}) =>
  new BridgeError('INVALID_OPML', 422, `${message} Nothing was changed.`, details);

interface XmlOutline {
  text?: unknown;
  title?: unknown;
  _note?: unknown;
  outline?: XmlOutline[];
}

/**
 * OPML → outline nodes with fast-xml-parser. Entities declared in a DOCTYPE
 * are refused (size and count 1, no nesting), so an entity bomb fails at once
 * instead of expanding; the five XML escapes and character references decode.
 */
export function parseOpml(content: string, maxDepth: number): { title: string | undefined; roots: OutlineNode[] } {
  const valid = XMLValidator.validate(content);
  if (valid !== true)
    throw invalid(
      `The OPML is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col}).`,
      { line: valid.err.line, col: valid.err.col },
    );
  let doc: { opml?: { head?: { title?: unknown }; body?: { outline?: XmlOutline[] } | string } };
  try {
    doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      parseAttributeValue: false,
      parseTagValue: false,
      htmlEntities: true,
      isArray: (name) => name === 'outline',
      processEntities: { enabled: true, maxEntityCount: 1, maxEntitySize: 1, maxExpansionDepth: 1 },
    }).parse(content) as typeof doc;
  } catch (e) {
    throw invalid(`The OPML could not be read: ${(e as Error).message}.`);
  }
  if (!doc.opml || typeof doc.opml !== 'object')
    throw invalid('The document is not OPML: its root element must be <opml>.');
  const body = doc.opml.body;
  if (body === undefined) throw invalid('The OPML has no <body>.');
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
  const convert = (x: XmlOutline, depth: number): OutlineNode => {
    if (depth > maxDepth)
      throw new BridgeError(
        'OUTLINE_TOO_DEEP',
        422,
        `The outline nests deeper than ${maxDepth} levels. Nothing was changed.`,
        { maxDepth },
      );
    const note = str(x._note).trim();
    return {
      title: str(x.text ?? x.title)
        .replace(/\s+/g, ' ')
        .trim(),
      texts: note ? note.split(/\n{2,}/) : [],
      children: (x.outline ?? []).map((c) => convert(c, depth + 1)),
    };
  };
  const title = str(doc.opml.head?.title).trim() || undefined;
  // An empty <body/> reads as a string: no outlines (OUTLINE_EMPTY follows).
  return { title, roots: typeof body === 'object' && body ? (body.outline ?? []).map((o) => convert(o, 1)) : [] };
}
