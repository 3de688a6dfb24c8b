import { invalidInput, notFound, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { recordOperation } from '../cards/noteRows';
import type { Decks } from '../library/decks';
import { newId, nowIso } from '../library/ids';
import type { Store } from '../../ground/store/store';
import { aliveIds, resolveNote, type DeckCardRow } from './deckCards';
import {
  gradeOf,
  nextDues,
  nextIntervals,
  parseSchedule,
  ratingOf,
  REVIEW_RATINGS,
  review,
  stateName,
  viewOf,
  type ReviewRating,
  type ReviewState,
  type ScheduleView,
} from './deckScheduling';
import { facesOf, type ReviewAnswer, type ReviewQuestion } from './reviewFaces';

/**
 * Studying a deck: what is due now with both sides resolved (GET
 * /decks/{id}/due), grading one card (POST /decks/{id}/reviews: FSRS
 * reschedules it and a review log row records the grade), and the log itself
 * (GET /decks/{id}/reviews), so parameters can be fitted to the person later.
 * "Today" is the bridge's local day (the person's machine).
 */

export interface DueCard extends ScheduleView {
  cardNoteId: string;
  sourceNoteId: string;
  resolvedNoteId: string;
  sourceAlive: boolean;
  question: ReviewQuestion;
  answer: ReviewAnswer;
  /** The interval under each button, as ts-fsrs computes it now ("1m", "10m", "3d"). */
  nextIntervals: Record<ReviewRating, string>;
  /** The due date each button would give. */
  nextDues: Record<ReviewRating, string>;
}

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

/** Learning cards first (they are mid-step), then reviews, then new cards: Anki's order. */
const ORDER: Record<ReviewState, number> = { learning: 0, relearning: 0, review: 1, new: 2 };

/** Start of the local day holding `now`, and of the next one. */
export function localDay(now: Date): { start: Date; end: Date } {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return { start, end: new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1) };
}

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

  /**
   * The cards due at `now` in review order (at most `limit`), both sides resolved; counts cover all of them.
   * With `until`: the cards due by then, in the order they were added. The list and dueTodayCount read the
   * same stored due date, so a relearning card is counted alike in each.
   */
  due(deckId: string, opts: { now?: Date; limit?: number; until?: Date } = {}) {
    const deck = this.decks.get(deckId);
    const now = opts.now ?? new Date();
    const nowText = now.toISOString();
    const horizon = opts.until?.toISOString() ?? nowText;
    const day = localDay(now);
    // rowid: the order cards were added (one add call gives all its cards the same created_at).
    const rows = this.store.all<DeckCardRow & { seq: number }>(
      'SELECT *, rowid AS seq FROM deck_cards WHERE deck_id = ? AND coalesce(due_at, created_at) <= ?',
      [deckId, horizon],
    );
    const resolved = new Map(rows.map((r) => [r.source_note_id, resolveNote(this.store, r.source_note_id)]));
    const alive = aliveIds(this.store, [...rows.map((r) => r.source_note_id), ...resolved.values()]);
    const due = rows
      .map((row) => ({ row, schedule: parseSchedule(row.fsrs, row.due_at ?? row.created_at) }))
      .map((c) => ({ ...c, view: viewOf(c.schedule) }))
      .sort((a, b) =>
        opts.until
          ? a.row.seq - b.row.seq
          : ORDER[a.view.state] - ORDER[b.view.state] ||
            cmp(a.view.due, b.view.due) ||
            cmp(a.row.created_at, b.row.created_at) ||
            a.row.seq - b.row.seq,
      );
    const cards = due.slice(0, opts.limit ?? due.length).map(({ row, schedule, view }): DueCard => {
      const resolvedNoteId = resolved.get(row.source_note_id)!;
      const sourceAlive = alive.has(row.source_note_id) && alive.has(resolvedNoteId);
      // Intervals from now, or from the last review if a client clock placed it later.
      const from = schedule.last_review && schedule.last_review > nowText ? new Date(schedule.last_review) : now;
      const dues = nextDues(schedule, from);
      return {
        cardNoteId: row.card_note_id,
        sourceNoteId: row.source_note_id,
        resolvedNoteId,
        sourceAlive,
        ...facesOf(this.store, row, resolvedNoteId, sourceAlive),
        ...view,
        nextIntervals: nextIntervals(schedule, from),
        nextDues: Object.fromEntries(REVIEW_RATINGS.map((r) => [r, dues[r].toISOString()])) as Record<
          ReviewRating,
          string
        >,
      };
    });
    const count = (sql: string, params: (string | number)[]) => this.store.get<{ n: number }>(sql, params)?.n ?? 0;
    const nextDueAt =
      this.store.get<{ d: string | null }>(
        'SELECT min(coalesce(due_at, created_at)) AS d FROM deck_cards WHERE deck_id = ? AND coalesce(due_at, created_at) > ?',
        [deckId, horizon],
      )?.d ?? null;
    return {
      deckId,
      title: deck.title,
      now: nowText,
      ...(opts.until ? { until: horizon } : {}),
      cards,
      count: cards.length,
      dueCount: due.length,
      newCount: due.filter((c) => c.view.state === 'new').length,
      learningCount: due.filter((c) => ORDER[c.view.state] === 0).length,
      reviewCount: due.filter((c) => c.view.state === 'review').length,
      dueTodayCount: count(
        'SELECT count(*) AS n FROM deck_cards WHERE deck_id = ? AND coalesce(due_at, created_at) < ?',
        [deckId, day.end.toISOString()],
      ),
      reviewedToday: count('SELECT count(*) AS n FROM review_logs WHERE deck_id = ? AND reviewed_at >= ?', [
        deckId,
        day.start.toISOString(),
      ]),
      dayStartsAt: day.start.toISOString(),
      nextDueAt,
    };
  }

  /** One grade: FSRS reschedules the card and the review log records it, in one durable write. */
  async grade(deckId: string, input: GradeInput, actor: Actor) {
    const at = input.reviewedAt ?? new Date();
    const now = nowIso();
    const reviewLogId = newId();
    const { cardNoteId, rating } = input;
    const result = await this.store.write((tx) => {
      this.decks.get(deckId);
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
      const outcome = review(before, rating, at);
      const fsrsJson = JSON.stringify(outcome.schedule);
      tx.run('UPDATE deck_cards SET fsrs = ?, due_at = ?, modified_at = ? WHERE card_note_id = ?', [
        fsrsJson,
        outcome.schedule.due,
        now,
        cardNoteId,
      ]);
      const log = outcome.log;
      tx.run(
        `INSERT INTO review_logs(id, deck_id, card_note_id, rating, state_before, due_before, stability, difficulty, elapsed_days, last_elapsed_days,
           scheduled_days, learning_steps, reviewed_at, duration_ms, due_after, actor, token_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          reviewLogId,
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
          input.durationMs ?? null,
          outcome.schedule.due,
          actor.kind,
          actor.tokenId,
        ],
      );
      recordOperation(tx, { topicid: deckId, kind: 'review', actor, noteIds: [cardNoteId], now });
      return { before, outcome, fsrsJson };
    });
    // Proof: the card's schedule and the log row, read back.
    const back = this.store.get<DeckCardRow>('SELECT fsrs, due_at FROM deck_cards WHERE card_note_id = ?', [
      cardNoteId,
    ]);
    const logged = this.store.get<ReviewLogRow>('SELECT * FROM review_logs WHERE id = ?', [reviewLogId]);
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
      reviewLogId,
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

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
