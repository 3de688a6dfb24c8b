import { createHash } from 'node:crypto';
import { invalidInput } from '../../errors';
import { loadSetTree, subtreeSlice } from '../cards/cardTree';
import { getNote, inList, type Db } from '../cards/noteRows';

/** One card as the print draws it. */
export interface PrintCard {
  noteid: string;
  parent: string | null;
  /** Distance from the printed root (0 = the root). */
  depth: number;
  /** The title, else the start of the body text, else "(untitled)". */
  label: string;
  colorIndex: number | null;
}

export interface PrintTree {
  topicid: string;
  setTitle: string;
  rootNoteId: string;
  /** Pre-order: parent before children, siblings by position. */
  cards: PrintCard[];
  /** Hash of everything the print draws (structure, order, labels, colours): a change makes a plan stale. */
  fingerprint: string;
}

const LABEL_MAX = 120;

/**
 * The part of a set's card tree a mind-map print covers: the whole set, or
 * the branch under rootNoteId (404 TOPIC_NOT_FOUND, 422 IS_A_DECK through
 * loadSetTree; a card of another set → 422).
 */
export function loadPrintTree(db: Db, topicid: string, rootNoteId?: string): PrintTree {
  const tree = loadSetTree(db, topicid);
  let start = 0;
  if (rootNoteId !== undefined) {
    const card = getNote(db, rootNoteId);
    if (card.topicid !== topicid)
      throw invalidInput(
        `Card ${rootNoteId} belongs to study set ${card.topicid}, not ${topicid}.`,
        { rootNoteId, topicids: [topicid, card.topicid] },
        'NOTES_IN_DIFFERENT_SETS',
      );
    const i = tree.indexOf.get(card.noteid);
    if (i === undefined)
      throw invalidInput(
        `Card ${rootNoteId} is not reachable from the set's root card.`,
        { rootNoteId },
        'NOTE_NOT_IN_TREE',
      );
    start = i;
  }
  if (!tree.nodes.length) throw invalidInput('The study set has no root card to print.', { topicid }, 'EMPTY_TREE');
  const nodes = subtreeSlice(tree.nodes, start);
  const base = nodes[0].level;
  const untitled = nodes.filter((_n, k) => !tree.fullTitles[start + k].trim()).map((n) => n.noteid);
  const bodies = new Map<string, string>();
  for (let k = 0; k < untitled.length; k += 500) {
    const ids = untitled.slice(k, k + 500);
    for (const r of db.all<{ noteid: string; text: string }>(
      `SELECT noteid, text FROM note_texts WHERE idx = 0 AND noteid IN ${inList(ids.length)}`,
      ids,
    ))
      bodies.set(r.noteid, r.text);
  }
  const cards = nodes.map((n, k) => {
    const raw = tree.fullTitles[start + k].trim() || bodies.get(n.noteid)?.trim() || '(untitled)';
    const label = raw.replace(/\s+/g, ' ');
    return {
      noteid: n.noteid,
      parent: k === 0 ? null : n.parent,
      depth: n.level - base,
      label: label.length > LABEL_MAX ? `${label.slice(0, LABEL_MAX - 1)}…` : label,
      colorIndex: n.colorIndex,
    };
  });
  const h = createHash('sha256');
  for (const c of cards) h.update(JSON.stringify([c.noteid, c.parent, c.label, c.colorIndex]));
  return { topicid, setTitle: tree.setTitle, rootNoteId: nodes[0].noteid, cards, fingerprint: h.digest('hex') };
}
