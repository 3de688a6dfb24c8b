import { parseResult } from '../bundles/resultParser';
import type { OutlineNode, SetOutline } from './outlineTree';

/** Heading levels used before bullets take over (Markdown has six). */
const HEADING_LEVELS = 6;

/**
 * A Markdown outline: the top six levels as headings, deeper cards as nested
 * bullets; texts as paragraphs, an excerpt as `> quote (p. N)`. It reads back
 * through the result.md parser (parseMarkdownOutline).
 */
export function toMarkdown(outline: SetOutline): string {
  const out: string[] = [];
  const block = (lines: string[], indent: string) => {
    out.push('');
    for (const l of lines) out.push(l ? `${indent}${l}` : '');
  };
  const write = (n: OutlineNode, level: number) => {
    const quote = (t: string) => t.split('\n').map((l) => `> ${l}`);
    const texts = n.texts.map((t, i) =>
      i === 0 && n.page !== undefined ? quote(`${t} (p. ${n.page})`) : t.split('\n'),
    );
    if (level <= HEADING_LEVELS) {
      out.push('', `${'#'.repeat(level)} ${n.title}`);
      for (const t of texts) block(t, '');
    } else {
      const indent = '  '.repeat(level - HEADING_LEVELS - 1);
      out.push(`${out.length && level === HEADING_LEVELS + 1 ? '\n' : ''}${indent}- ${n.title}`);
      for (const t of texts) block(t, `${indent}  `);
      if (texts.length) out.push('');
    }
    for (const c of n.children) write(c, level + 1);
  };
  for (const r of outline.roots) write(r, 1);
  return `${out.join('\n').trim()}\n`;
}

/** Markdown → outline nodes with the result.md parser, bullets as cards; text before the first heading is ignored. */
export function parseMarkdownOutline(content: string): {
  roots: OutlineNode[];
  problems: ReturnType<typeof parseResult>['problems'];
} {
  const parsed = parseResult(content, { stripWikilinks: true, listItemsAsCards: true });
  const nodes = parsed.cards.map((c) => ({
    title: c.title,
    texts: [...c.texts, ...c.excerpts.filter((e) => e.kind === 'excerpt').map((e) => e.text)],
    children: [] as OutlineNode[],
  }));
  const roots: OutlineNode[] = [];
  for (const c of parsed.cards) {
    if (c.parent === null) continue;
    if (c.parent === 0) roots.push(nodes[c.index]);
    else nodes[c.parent].children.push(nodes[c.index]);
  }
  return { roots, problems: parsed.problems };
}
