import { BridgeError, invalidInput } from '../../errors';
import type { Actor } from '../../actor';
import type { Store } from '../../ground/store/store';
import { newId, nowIso } from '../library/ids';
import { cutTitle } from '../cards/sourceAnchor';
import { insertNote, recordOperation, reindexNote } from '../cards/noteRows';
import { insertTexts } from '../cards/rows/cardRowsInsert';
import { parseOpml } from './outlineOpml';
import { parseMarkdownOutline } from './outlineMarkdown';
import { measure, type OutlineNode } from './outlineTree';

export const MAX_OUTLINE_CARDS = 5000;
export const MAX_OUTLINE_DEPTH = 64;
export type OutlineFormat = 'opml' | 'md';

export interface OutlinePlan {
  title: string;
  /** The set's root card: the outline's single top card, else a card bearing the set's title. */
  root: OutlineNode;
  cards: number;
  depth: number;
  warnings: string[];
}

/** Parses and checks an outline, writing nothing: 422 INVALID_OPML, OUTLINE_EMPTY, TOO_MANY_CARDS, OUTLINE_TOO_DEEP. */
export function planOutline(format: OutlineFormat, content: string, title: string | undefined): OutlinePlan {
  let roots: OutlineNode[];
  let docTitle: string | undefined;
  const warnings: string[] = [];
  if (format === 'opml') ({ title: docTitle, roots } = parseOpml(content, MAX_OUTLINE_DEPTH));
  else {
    const md = parseMarkdownOutline(content);
    roots = md.roots;
    for (const p of md.problems) if (p.severity === 'error') warnings.push(`line ${p.line}: ${p.message}`);
  }
  const { cards, depth } = measure(roots);
  if (!cards)
    throw invalidInput(
      `The ${format === 'opml' ? 'OPML has no <outline>' : 'Markdown has no heading or bullet'}: there is no card to import. Nothing was changed.`,
      { format },
      'OUTLINE_EMPTY',
    );
  if (cards > MAX_OUTLINE_CARDS)
    throw invalidInput(
      `The outline holds ${cards} cards; at most ${MAX_OUTLINE_CARDS} import at once. Split it. Nothing was changed.`,
      { max: MAX_OUTLINE_CARDS, count: cards },
      'TOO_MANY_CARDS',
    );
  if (depth > MAX_OUTLINE_DEPTH)
    throw new BridgeError(
      'OUTLINE_TOO_DEEP',
      422,
      `The outline nests ${depth} levels; at most ${MAX_OUTLINE_DEPTH}. Nothing was changed.`,
      { maxDepth: MAX_OUTLINE_DEPTH, depth },
    );
  const setTitle = (
    title?.trim() ||
    (roots.length === 1 ? roots[0].title : '') ||
    docTitle ||
    'Imported outline'
  ).replace(/\s+/g, ' ');
  const root = roots.length === 1 && !title?.trim() ? roots[0] : { title: setTitle, texts: [], children: roots };
  return {
    title: cutTitle(setTitle) || 'Imported outline',
    root,
    cards: measure([root]).cards,
    depth: measure([root]).depth,
    warnings,
  };
}

/** What the dry-run shows: counts and the top titles. */
export function previewOutline(plan: OutlinePlan) {
  return {
    wouldCreate: { studySets: 1, cards: plan.cards },
    title: plan.title,
    depth: plan.depth,
    topTitles: plan.root.children.slice(0, 20).map((c) => c.title),
    warnings: plan.warnings,
  };
}

/** Creates the set and its whole tree in one transaction with one operation row. */
export async function writeOutline(store: Store, plan: OutlinePlan, actor: Actor) {
  const topicid = newId();
  const now = nowIso();
  const noteIds: string[] = [];
  await store.write((tx) => {
    const rootId = newId();
    tx.run(
      `INSERT INTO topics(topicid, kind, title, root_note_id, created_at, modified_at) VALUES (?, 'studyset', ?, ?, ?, ?)`,
      [topicid, plan.title, rootId, now, now],
    );
    const stack: Array<{ node: OutlineNode; id: string; parentId: string | null; position: number }> = [
      { node: plan.root, id: rootId, parentId: null, position: 0 },
    ];
    while (stack.length) {
      const { node, id, parentId, position } = stack.pop()!;
      insertNote(tx, {
        noteid: id,
        topicid,
        parentId,
        position,
        title: id === rootId ? plan.title : node.title,
        text: node.texts[0],
        excerpt: false,
        now,
      });
      insertTexts(
        tx,
        id,
        node.texts.slice(1).map((text, i) => ({ idx: i + 1, text })),
      );
      if (node.texts.length > 1) reindexNote(tx, id);
      noteIds.push(id);
      for (let i = node.children.length - 1; i >= 0; i--)
        stack.push({ node: node.children[i], id: newId(), parentId: id, position: i });
    }
    recordOperation(tx, { topicid, kind: 'create', actor, noteIds, now });
  });
  return {
    topicid,
    title: plan.title,
    rootNoteId: noteIds[0],
    cards: noteIds.length,
    depth: plan.depth,
    warnings: plan.warnings,
  };
}
