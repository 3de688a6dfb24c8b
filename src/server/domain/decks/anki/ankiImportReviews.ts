import type { Actor } from '../../../actor';
import { fsrsColumn } from '../deckScheduling';
import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx } from '../../../ground/store/store';
import { drained, type WriteSteps } from '../../../ground/store/writeSteps';
import { studyDay } from '../deckOptions';
import { deckOptionsOf } from '../deckPresets';
import type { ReviewSource } from './ankiImportCards';
import { scheduleState } from './ankiImportTriggers';
import { REVIEW_LOG_COLUMNS, reviewCounted, reviewLogValues } from './ankiRevlog';
import type { CounterTally } from '../counterTally';
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
/** Review log rows made before they are written. */
const LOG_CHUNK_ROWS = 200;

export function writeReviews(...args: Parameters<typeof writeReviewsSteps>): string[] {
  return drained(writeReviewsSteps(...args));
}

/** Who writes, when, and where the insert triggers are off (ankiImportTriggers.ts), the tally of the cards and reviews inserted. */
interface ReviewsWrite {
  actor: Actor;
  now: string;
  tally?: CounterTally;
}

/** writeReviews, yielding after each statement (writeSteps.ts). */
export function* writeReviewsSteps(
  tx: WriteTx,
  deckId: string,
  sources: readonly ReviewSource[],
  { actor, now, tally }: ReviewsWrite,
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
  const fresh = ascendingIds(sources.length);
  const cardIds = sources.map(({ sourceId }, i) => existing.get(sourceId) ?? fresh[i]);
  const values = ({ review: r }: ReviewSource): SqlParam[] => [
    r.question,
    r.question === null ? 0 : null,
    fsrsColumn(r.schedule),
    r.schedule.due,
    r.queue,
    r.queue === 'buried' ? buriedUntil : null,
    r.flag,
    now,
  ];
  const prior = sources.flatMap((s, i) => (existing.has(s.sourceId) ? [i] : []));
  yield* updateRows(
    tx,
    'deck_cards',
    'card_note_id',
    ['question', 'question_index', 'fsrs', 'due_at', 'queue', 'buried_until', 'flag', 'modified_at'],
    prior.map((i) => [cardIds[i], ...values(sources[i])]),
  );
  // Each chunk's rows are made as it is written, not all first: 40,000 rows kept until the last chunk lived long
  // enough to be promoted to the old generation, which grew by them. question_content_id stays NULL: an Anki card asks
  // with its title or its cloze text. state: ankiImportTriggers.ts.
  yield* insertRowsSteps(
    tx,
    'INSERT INTO deck_cards(card_note_id, deck_id, source_note_id, question, question_index, fsrs, due_at, queue, buried_until, flag, modified_at, created_at, state)',
    sources.flatMap((s, i) => (existing.has(s.sourceId) ? [] : [i])),
    (i) => {
      const { schedule, queue } = sources[i].review;
      const state = scheduleState(schedule);
      tally?.card({ deck_id: deckId, queue, state, due_at: schedule.due, created_at: now });
      return [cardIds[i], deckId, sources[i].sourceId, ...values(sources[i]), now, state];
    },
  );
  yield* writeReviewLogs(tx, deckId, sources, cardIds, new Set(existing.values()), { actor, now, tally });
  return cardIds;
}

function* writeReviewLogs(
  tx: WriteTx,
  deckId: string,
  sources: readonly ReviewSource[],
  cardIds: readonly string[],
  updated: ReadonlySet<string>,
  { actor, tally }: ReviewsWrite,
): WriteSteps<void> {
  const logged = new Set(
    (yield* allForIdsSteps<{ card_note_id: string; reviewed_at: string }>(
      tx,
      'SELECT card_note_id, reviewed_at FROM review_logs WHERE card_note_id IN $IN',
      [...updated],
    )).map((r) => `${r.card_note_id} ${r.reviewed_at}`),
  );
  const head = `INSERT INTO review_logs(id, deck_id, card_note_id, ${REVIEW_LOG_COLUMNS})`;
  const kept = (cardId: string, reviewedAt: string) => !(updated.has(cardId) && logged.has(`${cardId} ${reviewedAt}`));
  // Counted first so that ids ascend across chunks; rows are then made a chunk at a time, as the deck cards' are.
  let total = 0;
  sources.forEach(({ review }, i) => {
    // A card not imported before keeps its whole log (no date to make).
    if (!updated.has(cardIds[i])) total += review.revlog.length;
    else for (const r of review.revlog) if (kept(cardIds[i], new Date(r.id).toISOString())) total++;
  });
  const ids = ascendingIds(total);
  let chunk: SqlParam[][] = [];
  let next = 0;
  for (const [i, { review }] of sources.entries()) {
    if (i % YIELD_ROWS === YIELD_ROWS - 1) yield;
    if (!review.revlog.length) continue;
    const cardId = cardIds[i];
    // values[9] is reviewed_at.
    for (const values of reviewLogValues(review.revlog, actor))
      if (kept(cardId, values[9] as string)) {
        chunk.push([ids[next++], deckId, cardId, ...values]);
        tally?.review(reviewCounted(deckId, values));
      }
    if (chunk.length >= LOG_CHUNK_ROWS) {
      yield* insertRowsSteps(tx, head, chunk);
      chunk = [];
    }
  }
  yield* insertRowsSteps(tx, head, chunk);
}
