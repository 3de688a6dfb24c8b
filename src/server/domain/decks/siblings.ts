import { inList } from '../cards/noteRows';
import type { WriteTx } from '../../ground/store/store';
import { resolveNote } from './deckCardRows';
import { studyDay, type DeckOptions } from './deckOptions';
import { STATE_SQL } from './dueCounts';

/**
 * Bury siblings, as Anki's option of that name: once a card is answered, the
 * other review cards of the same content wait until the next study day. A
 * review card reads one source card, so its siblings are the review cards (in
 * any deck) whose source is that card, its original, or another reference
 * copy of the original. Only cards in the studied queue are buried.
 */
export function buryRelated(
  tx: WriteTx,
  o: { deckId: string; cardNoteId: string; sourceNoteId: string; options: DeckOptions; at: Date },
): number {
  const { buryNewSiblings, buryReviewSiblings, buryInterdayLearningSiblings } = o.options;
  if (!buryNewSiblings && !buryReviewSiblings && !buryInterdayLearningSiblings) return 0;
  const original = resolveNote(tx, o.sourceNoteId);
  const sources = [
    ...new Set([
      o.sourceNoteId,
      original,
      ...tx.all<{ noteid: string }>('SELECT noteid FROM notes WHERE reference_of = ?', [original]).map((r) => r.noteid),
    ]),
  ];
  const states = [
    ...(buryNewSiblings ? ['0'] : []),
    ...(buryReviewSiblings ? ['2'] : []),
    // Interday learning: a (re)learning card whose next step is a day or more away.
    ...(buryInterdayLearningSiblings ? ['1', '3'] : []),
  ];
  const rows = tx.all<{ card_note_id: string; st: number; sd: number | null }>(
    `SELECT card_note_id, ${STATE_SQL} AS st, (CASE WHEN json_valid(fsrs) THEN json_extract(fsrs, '$.scheduled_days') END) AS sd
     FROM deck_cards WHERE source_note_id IN ${inList(sources.length)}
     AND card_note_id <> ? AND queue IS NULL AND ${STATE_SQL} IN (${states.join(', ')})`,
    [...sources, o.cardNoteId],
  );
  const ids = rows.filter((r) => !(r.st === 1 || r.st === 3) || (r.sd ?? 0) >= 1).map((r) => r.card_note_id);
  if (!ids.length) return 0;
  const until = studyDay(o.at, o.options.dayStartHour).end.toISOString();
  tx.run(`UPDATE deck_cards SET queue = 'buried', buried_until = ? WHERE card_note_id IN ${inList(ids.length)}`, [
    until,
    ...ids,
  ]);
  return ids.length;
}
