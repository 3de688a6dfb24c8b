import { inList, type Db } from '../cards/noteRows';

/** A review card's row and the reads both the deck's writes (deckCards.ts) and its list (deckCardList.ts) share. */

export type QuestionMode = 'automatic' | 'custom_text' | 'content_part';

export interface DeckCardRow {
  card_note_id: string;
  deck_id: string;
  source_note_id: string;
  question: string | null;
  question_content_id: string | null;
  question_index: number | null;
  title: string | null;
  fsrs: string | null;
  due_at: string | null;
  created_at: string;
  modified_at: string;
  /** NULL: studied; 'suspended' | 'buried' (cardActions.ts). */
  queue?: string | null;
  buried_until?: string | null;
  flag?: number;
  leech?: number;
}

export const modeOf = (r: Pick<DeckCardRow, 'question' | 'question_content_id'>): QuestionMode =>
  r.question_content_id ? 'content_part' : r.question !== null ? 'custom_text' : 'automatic';

/** The card a (possibly reference-copied) card reads: follows `reference_of` to the original, hidden rows included. */
export function resolveNote(db: Db, noteid: string): string {
  let id = noteid;
  for (let hop = 0; hop < 16; hop++) {
    const next = db.get<{ reference_of: string | null }>('SELECT reference_of FROM notes WHERE noteid = ?', [
      id,
    ])?.reference_of;
    if (!next || next === id) break;
    id = next;
  }
  return id;
}

/** A card `n` is alive: visible, in a visible study set `t` (aliveIds, and the faces' batched reads). */
export const ALIVE_SQL = "n.hidden = 0 AND t.hidden = 0 AND t.kind = 'studyset'";

/** Visible cards of visible study sets among `ids`. */
export function aliveIds(db: Db, ids: readonly string[]): Set<string> {
  const unique = [...new Set(ids)];
  const alive = new Set<string>();
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    for (const r of db.all<{ noteid: string }>(
      `SELECT n.noteid FROM notes n JOIN topics t ON t.topicid = n.topicid
       WHERE ${ALIVE_SQL} AND n.noteid IN ${inList(chunk.length)}`,
      chunk,
    ))
      alive.add(r.noteid);
  }
  return alive;
}
