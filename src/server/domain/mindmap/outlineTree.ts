import { loadSetTree } from '../cards/cardTree';
import type { Db } from '../cards/noteRows';

/** One card of an outline, as OPML and Markdown carry it both ways. */
export interface OutlineNode {
  title: string;
  /** The card's texts in order (an excerpt first). */
  texts: string[];
  /** An excerpt card's page (export only: an imported set has no document to anchor to). */
  page?: number;
  children: OutlineNode[];
}

export interface SetOutline {
  title: string;
  /** The set's root card (one tree), or none for an empty set. */
  roots: OutlineNode[];
  count: number;
}

/**
 * The set's visible tree with every card's texts: the tree query of GET
 * /study-sets/{id}/tree plus one query for all texts (never one read per card).
 * Untitled cards carry their display title (the first words of their excerpt).
 */
export function readSetOutline(db: Db, topicid: string): SetOutline {
  const tree = loadSetTree(db, topicid);
  const rows = db.all<{ id: string; text: string; excerpt: number }>(
    `SELECT n.noteid AS id, t.text, t.excerpt FROM notes n JOIN note_texts t ON t.noteid = COALESCE(n.reference_of, n.noteid)
     WHERE n.topicid = ? AND n.hidden = 0 AND t.kind IN ('text', 'excerpt') ORDER BY n.noteid, t.idx`,
    [topicid],
  );
  const texts = new Map<string, { list: string[]; excerpt: boolean }>();
  for (const r of rows) {
    const entry = texts.get(r.id) ?? { list: [], excerpt: false };
    if (r.text.trim()) entry.list.push(r.text);
    if (r.excerpt === 1) entry.excerpt = true;
    texts.set(r.id, entry);
  }
  const byId = new Map<string, OutlineNode>();
  const roots: OutlineNode[] = [];
  tree.nodes.forEach((n, i) => {
    const own = texts.get(n.noteid);
    const title = tree.fullTitles[i].replace(/\s+/g, ' ').trim() || n.displayTitle;
    const node: OutlineNode = { title, texts: own?.list ?? [], children: [] };
    if (n.page !== null && (own?.excerpt || n.hasExcerpt)) node.page = n.page;
    byId.set(n.noteid, node);
    const parent = n.parent === null ? undefined : byId.get(n.parent);
    if (parent) parent.children.push(node);
    else roots.push(node);
  });
  return { title: tree.setTitle, roots, count: tree.nodes.length };
}

/** Cards and depth of a tree (the root level is depth 1). */
export function measure(roots: readonly OutlineNode[]): { cards: number; depth: number } {
  let cards = 0;
  let depth = 0;
  const stack = roots.map((node) => ({ node, d: 1 }));
  while (stack.length) {
    const { node, d } = stack.pop()!;
    cards++;
    depth = Math.max(depth, d);
    for (const c of node.children) stack.push({ node: c, d: d + 1 });
  }
  return { cards, depth };
}
