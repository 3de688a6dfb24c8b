import type { Actor } from '../../../actor';
import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx } from '../../../ground/store/store';
import { drained, type WriteSteps } from '../../../ground/store/writeSteps';
import { studyDay } from '../deckOptions';
import { deckOptionsOf } from '../deckPresets';
import type { ReviewSource } from './ankiImportCards';
import { scheduleState } from './ankiImportTriggers';
import { REVIEW_LOG_COLUMNS, reviewLogValues } from './ankiRevlog';
import { allForIdsSteps, ascendingIds, insertRowsSteps, updateRows } from './sqlBatches';

/**
 * Each Anki card's review card and review log. The card takes the package's
 * scheduling, queue (suspended, or buried until the end of the deck's study
 * day) and flag, also on an update. Its revlog rows join our review log as
 * POST /decks/{id}/reviews writes it; on an update a review already logged
 * at the same instant (an earlier import, or our own review that an export
 * carried out) is not logged twice.
 */

/** Cards planned between yields (JS work only). */
const YIELD_ROWS = 250;

export function writeReviews(...args: Parameters<typeof writeReviewsSteps>): string[] {
  return drained(writeReviewsSteps(...args));
}

/** writeReviews, yielding after each statement (writeSteps.ts). */
export function* writeReviewsSteps(
  tx: WriteTx,
  deckId: string,
  sources: readonly ReviewSource[],
  actor: Actor,
  now: string,
): WriteSteps<string[]> {
  const existing = new Map(
    (yield* allForIdsSteps<{ card_note_id: string; source_note_id: string }>(
      tx,
      'SELECT card_note_id, source_note_id FROM deck_cards WHERE deck_id = ? AND source_note_id IN $IN',
      sources.map((s) => s.sourceId),
      [deckId],
    )).map((r) => [r.source_note_id, r.card_note_id]),
  );
  const buriedUntil = studyDay(new Date(now), deckOptionsOf(tx, deckId).options.dayStartHour).end.toISOString();
  const inserts: SqlParam[][] = [];
  const updates: SqlParam[][] = [];
  const cardIds: string[] = [];
  const fresh = ascendingIds(sources.length);
  for (const [i, { review: r, sourceId }] of sources.entries()) {
    if (i % YIELD_ROWS === YIELD_ROWS - 1) yield;
    const values: SqlParam[] = [
      r.question,
      r.question === null ? 0 : null,
      JSON.stringify(r.schedule),
      r.schedule.due,
      r.queue,
      r.queue === 'buried' ? buriedUntil : null,
      r.flag,
      now,
    ];
    const prior = existing.get(sourceId);
    const cardId = prior ?? fresh[i];
    if (prior) updates.push([prior, ...values]);
    else inserts.push([cardId, deckId, sourceId, ...values, now, scheduleState(r.schedule)]);
    cardIds.push(cardId);
  }
  yield* updateRows(
    tx,
    'deck_cards',
    'card_note_id',
    ['question', 'question_index', 'fsrs', 'due_at', 'queue', 'buried_until', 'flag', 'modified_at'],
    updates,
  );
  // question_content_id stays NULL: an Anki card asks with its title or its cloze text. state: ankiImportTriggers.ts.
  yield* insertRowsSteps(
    tx,
    'INSERT INTO deck_cards(card_note_id, deck_id, source_note_id, question, question_index, fsrs, due_at, queue, buried_until, flag, modified_at, created_at, state)',
    inserts,
  );
  yield* writeReviewLogs(tx, deckId, sources, cardIds, new Set(existing.values()), actor);
  return cardIds;
}

function* writeReviewLogs(
  tx: WriteTx,
  deckId: string,
  sources: readonly ReviewSource[],
  cardIds: readonly string[],
  updated: ReadonlySet<string>,
  actor: Actor,
): WriteSteps<void> {
  const logged = new Set(
    (yield* allForIdsSteps<{ card_note_id: string; reviewed_at: string }>(
      tx,
      'SELECT card_note_id, reviewed_at FROM review_logs WHERE card_note_id IN $IN',
      [...updated],
    )).map((r) => `${r.card_note_id} ${r.reviewed_at}`),
  );
  const rows: SqlParam[][] = [];
  for (const [i, { review }] of sources.entries()) {
    if (i % YIELD_ROWS === YIELD_ROWS - 1) yield;
    if (!review.revlog.length) continue;
    const cardId = cardIds[i];
    for (const values of reviewLogValues(review.revlog, actor)) {
      // values[9] is reviewed_at.
      if (updated.has(cardId) && logged.has(`${cardId} ${values[9]}`)) continue;
      rows.push(['', deckId, cardId, ...values]);
    }
  }
  ascendingIds(rows.length).forEach((id, i) => (rows[i][0] = id));
  yield* insertRowsSteps(tx, `INSERT INTO review_logs(id, deck_id, card_note_id, ${REVIEW_LOG_COLUMNS})`, rows);
}
