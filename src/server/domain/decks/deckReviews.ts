import { invalidInput, notFound, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { recordOperation } from '../cards/noteRows';
import type { Decks } from '../library/decks';
import { newId, nowIso } from '../library/ids';
import type { Store } from '../../ground/store/store';
import type { WriteTx } from '../../ground/store/groupCommit';
import { type DeckCardRow } from './deckCardRows';
import { dueQueue } from './deckDue';
import { isLeechLapse } from './deckOptions';
import { deckOptionsOf } from './deckPresets';
import { gradeOf, parseSchedule, ratingOf, review, stateName, type ReviewRating } from './deckScheduling';
import { buryRelated } from './siblings';

/**
 * Studying a deck: what is due now with both sides resolved (GET
 * /decks/{id}/due), grading one card (POST /decks/{id}/reviews: FSRS
 * reschedules it and a review log row records the grade), and the log itself
 * (GET /decks/{id}/reviews), so parameters can be fitted to the person later.
 * "Today" is the study day on the bridge's clock (the person's machine),
 * starting at the deck's dayStartHour.
 */

export interface GradeInput {
  cardNoteId: string;
  rating: ReviewRating;
  reviewedAt?: Date;
  durationMs?: number;
}

interface ReviewLogRow {
  id: string;
  deck_id: string;
  card_note_id: string;
  rating: number;
  state_before: number;
  due_before: string;
  stability: number;
  difficulty: number;
  elapsed_days: number;
  last_elapsed_days: number;
  scheduled_days: number;
  learning_steps: number;
  reviewed_at: string;
  duration_ms: number | null;
  due_after: string;
  actor: string;
  token_id: string | null;
}

/** A client's clock may run this far ahead of ours. */
const CLOCK_SKEW_MS = 5 * 60_000;

const logView = (r: ReviewLogRow) => ({
  reviewLogId: r.id,
  cardNoteId: r.card_note_id,
  rating: ratingOf(r.rating) ?? String(r.rating),
  grade: r.rating,
  stateBefore: stateName(r.state_before),
  dueBefore: r.due_before,
  stability: r.stability,
  difficulty: r.difficulty,
  elapsedDays: r.elapsed_days,
  lastElapsedDays: r.last_elapsed_days,
  scheduledDays: r.scheduled_days,
  learningSteps: r.learning_steps,
  reviewedAt: r.reviewed_at,
  durationMs: r.duration_ms,
  dueAfter: r.due_after,
  actor: r.actor,
  tokenId: r.token_id,
});

export class DeckReviews {
  constructor(
    private readonly store: Store,
    private readonly decks: Decks,
  ) {}

  /** The cards due at `now` in review order under the deck's daily limits (deckDue.ts). */
  due(deckId: string, opts: { now?: Date; limit?: number; until?: Date } = {}) {
    return dueQueue(this.store, this.decks, deckId, opts);
  }

  /** One grade: FSRS reschedules the card and the review log records it, in one durable write. */
  async grade(deckId: string, input: GradeInput, actor: Actor) {
    const at = input.reviewedAt ?? new Date();
    const ids = { now: nowIso(), reviewLogId: newId() };
    const { cardNoteId, rating } = input;
    const result = await this.store.write((tx) => {
      this.decks.get(deckId);
      return applyGrade(tx, { deckId, input, at, actor, ...ids });
    });
    proveGrade(this.store, cardNoteId, rating, ids.reviewLogId, result);
    const s = result.outcome.schedule;
    return {
      persisted: true as const,
      deckId,
      cardNoteId,
      rating,
      grade: gradeOf(rating),
      reviewedAt: at.toISOString(),
      due: s.due,
      state: result.outcome.state,
      scheduledDays: result.outcome.scheduledDays,
      reps: s.reps,
      lapses: s.lapses,
      previousDue: result.before.due,
      reviewLogId: ids.reviewLogId,
      leech: result.leech,
      suspended: result.suspended,
    };
  }

  /** The review log of a deck (or of one card), oldest first. */
  logs(deckId: string, opts: { cardNoteId?: string; limit: number }) {
    this.decks.get(deckId);
    const where = opts.cardNoteId ? 'deck_id = ? AND card_note_id = ?' : 'deck_id = ?';
    const params = opts.cardNoteId ? [deckId, opts.cardNoteId] : [deckId];
    const rows = this.store.all<ReviewLogRow>(
      `SELECT * FROM review_logs WHERE ${where} ORDER BY reviewed_at, rowid LIMIT ?`,
      [...params, opts.limit + 1],
    );
    const reviews = rows.slice(0, opts.limit).map(logView);
    return { deckId, reviews, count: reviews.length, truncated: rows.length > opts.limit };
  }
}

interface GradeWrite {
  deckId: string;
  input: GradeInput;
  at: Date;
  actor: Actor;
  now: string;
  reviewLogId: string;
}

/** The card graded, refused when it is not in the deck or `at` is in the future or before its last review. */
function gradedCard(tx: WriteTx, { deckId, input: { cardNoteId }, at }: GradeWrite) {
  const row = tx.get<DeckCardRow>('SELECT * FROM deck_cards WHERE card_note_id = ? AND deck_id = ?', [
    cardNoteId,
    deckId,
  ]);
  if (!row)
    throw notFound(
      'CARD_NOT_FOUND',
      `No review card ${cardNoteId} in deck ${deckId}. GET /decks/{id}/due or /decks/{id}/cards lists them.`,
      { cardNoteId, deckId },
    );
  const before = parseSchedule(row.fsrs, row.due_at ?? row.created_at);
  if (at.getTime() > Date.now() + CLOCK_SKEW_MS) {
    throw invalidInput(
      `reviewedAt ${at.toISOString()} is in the future; send when the person answered (default now). Nothing was changed.`,
      { reviewedAt: at.toISOString() },
    );
  }
  if (before.last_review && at.toISOString() < before.last_review) {
    throw invalidInput(
      `reviewedAt ${at.toISOString()} is before this card's last review (${before.last_review}); reviews are applied in order. Nothing was changed.`,
      {
        lastReviewAt: before.last_review,
      },
    );
  }
  return { row, before };
}

/** Inside the write: the card rescheduled (leech marked, siblings buried) and its review log row. */
function applyGrade(tx: WriteTx, g: GradeWrite) {
  const { deckId, at, now } = g;
  const { cardNoteId, rating } = g.input;
  const { row, before } = gradedCard(tx, g);
  const { options } = deckOptionsOf(tx, deckId);
  const outcome = review(before, rating, at, options);
  const fsrsJson = JSON.stringify(outcome.schedule);
  // A lapse that makes the card a leech: marked, and suspended if the deck says so (Anki's leech action).
  const leech =
    outcome.schedule.lapses > before.lapses && isLeechLapse(outcome.schedule.lapses, options.leechThreshold);
  const suspended = leech && options.leechAction === 'suspend';
  tx.run(
    `UPDATE deck_cards SET fsrs = ?, due_at = ?, modified_at = ?, leech = max(leech, ?),
       queue = CASE WHEN ? THEN 'suspended' WHEN queue = 'buried' THEN NULL ELSE queue END WHERE card_note_id = ?`,
    [fsrsJson, outcome.schedule.due, now, leech ? 1 : 0, suspended ? 1 : 0, cardNoteId],
  );
  buryRelated(tx, { deckId, cardNoteId, sourceNoteId: row.source_note_id, options, at });
  const log = outcome.log;
  tx.run(
    `INSERT INTO review_logs(id, deck_id, card_note_id, rating, state_before, due_before, stability, difficulty, elapsed_days, last_elapsed_days,
       scheduled_days, learning_steps, reviewed_at, duration_ms, due_after, actor, token_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      g.reviewLogId,
      deckId,
      cardNoteId,
      log.rating,
      log.state,
      before.due,
      log.stability,
      log.difficulty,
      log.elapsed_days,
      log.last_elapsed_days,
      log.scheduled_days,
      log.learning_steps,
      log.review,
      g.input.durationMs ?? null,
      outcome.schedule.due,
      g.actor.kind,
      g.actor.tokenId,
    ],
  );
  recordOperation(tx, { topicid: deckId, kind: 'review', actor: g.actor, noteIds: [cardNoteId], now });
  return { before, outcome, fsrsJson, leech, suspended };
}

/** Proof: the card's schedule and the log row, read back after the write. */
function proveGrade(
  store: Store,
  cardNoteId: string,
  rating: ReviewRating,
  reviewLogId: string,
  result: ReturnType<typeof applyGrade>,
) {
  const back = store.get<DeckCardRow>('SELECT fsrs, due_at FROM deck_cards WHERE card_note_id = ?', [cardNoteId]);
  const logged = store.get<ReviewLogRow>('SELECT * FROM review_logs WHERE id = ?', [reviewLogId]);
  const s = result.outcome.schedule;
  if (
    back?.fsrs !== result.fsrsJson ||
    back.due_at !== s.due ||
    logged?.card_note_id !== cardNoteId ||
    logged.rating !== gradeOf(rating) ||
    logged.due_after !== s.due
  ) {
    throw saveFailed(
      'The grade was written but reading it back disagrees; GET /decks/{id}/cards and GET /decks/{id}/reviews show what is stored.',
      { cardNoteId, reviewLogId },
    );
  }
}
