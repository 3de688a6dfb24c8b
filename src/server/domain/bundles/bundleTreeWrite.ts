// A submitted bundle's planned cards written as rows (bundleSubmit.ts decides what and when).
import { nextChildPosition } from '../cards/noteRows';
import { insertCardRows, type PlannedCardRow, type PlannedText } from '../cards/rows/cardRowsBatch';
import type { WriteTx } from '../../ground/store/store';
import type { ImportPlan } from './importPlan';

/**
 * Writes the planned cards: the same rows insertNote writes (card, texts,
 * search index: title and texts joined, as reindexNote builds it; new cards
 * have no hashtags), as one batch of multi-row statements, since a
 * 2,000-card import would otherwise run some 14,000 statements.
 */
export function writeTree(
  tx: WriteTx,
  p: ImportPlan,
  topicid: string,
  parentId: string,
  rootPosition: number | undefined,
  now: string,
): void {
  const nextPos = new Map<string, number>();
  const cards: PlannedCardRow[] = [];
  const texts: PlannedText[] = [];
  const index: { noteid: string; topicid: string; text: string }[] = [];
  for (const c of p.cards) {
    const parent = c.parent ?? parentId;
    let position: number;
    if (c.parent === null) position = rootPosition ?? nextChildPosition(tx, parent);
    else {
      position = nextPos.get(parent) ?? 0;
      nextPos.set(parent, position + 1);
    }
    cards.push({
      noteid: c.noteid,
      topicid,
      parentId: parent,
      position,
      title: c.title,
      colorIndex: c.colorIndex,
      fillIndex: c.fillIndex,
      source: c.source,
      kind: c.kind === 'blank' ? 'blank' : 'card',
      now,
    });
    const own = c.texts.filter((t) => t.text !== '');
    own.forEach((t, i) => texts.push({ noteid: c.noteid, idx: i, text: t.text, excerpt: t.excerpt }));
    index.push({ noteid: c.noteid, topicid, text: [c.title, ...own.map((t) => t.text)].join('\n') });
  }
  insertCardRows(tx, { cards, texts, index });
}
