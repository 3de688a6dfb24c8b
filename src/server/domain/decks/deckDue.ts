import type { Store } from '../../ground/store/store';
import type { Decks } from '../library/decks';
import type { DeckCardRow } from './deckCardRows';
import { studyDay, type DeckOptions } from './deckOptions';
import { deckOptionsOf } from './deckPresets';
import {
  formatInterval,
  nextDues,
  nextDuesKey,
  parseSchedule,
  REVIEW_RATINGS,
  viewOf,
  type ReviewRating,
  type ScheduleView,
  type StoredSchedule,
} from './deckScheduling';
import { nextDueAt } from './nextDue';
import { dueByState, DUE_SQL, pickDue, studiedSince, STUDIED } from './dueCounts';
import { facesOf, type ReviewAnswer, type ReviewQuestion } from './reviewFaces';
import { readFaces } from './faceReads';
import { buryingEndsAt, keptPicks, sameRow } from './dueCache';
import type { FacePicture } from './anki/ankiFaceHtml';

/**
 * What to study now (GET /decks/{id}/due): learning cards (never held back),
 * then reviews up to the day's review limit, then new cards up to the new
 * limit (which the review limit also caps, as in Anki's v3 scheduler).
 * Suspended cards and cards buried until a later study day are left out.
 * The classes are picked and counted in SQL (dueCounts.ts) so a 100k-card
 * deck parses only the cards it shows.
 */

export interface DueCard extends ScheduleView {
  cardNoteId: string;
  sourceNoteId: string;
  resolvedNoteId: string;
  sourceAlive: boolean;
  question: ReviewQuestion;
  answer: ReviewAnswer;
  /** The pictures the sides' HTML names by media name, and where their bytes are. */
  pictures: FacePicture[];
  flag: number;
  leech: boolean;
  /** The interval under each button, as ts-fsrs computes it now ("1m", "10m", "3d"). */
  nextIntervals: Record<ReviewRating, string>;
  /** The due date each button would give. */
  nextDues: Record<ReviewRating, string>;
}

type Row = DeckCardRow & { seq: number; flag: number; leech: number };

/** What the limits leave for today, and what each held back. */
export function applyLimits(
  o: Pick<DeckOptions, 'newPerDay' | 'reviewsPerDay'>,
  due: { review: number; new: number },
  studied: { review: number; new: number },
) {
  const reviewsLeft = Math.max(0, o.reviewsPerDay - studied.review - studied.new);
  const reviews = Math.min(due.review, reviewsLeft);
  const newLeftByNew = Math.max(0, o.newPerDay - studied.new);
  const newLeft = Math.min(newLeftByNew, reviewsLeft - reviews);
  const fresh = Math.min(due.new, newLeft);
  const heldByNew = Math.max(0, due.new - newLeftByNew);
  return {
    reviews,
    new: fresh,
    newLeft,
    reviewsLeft,
    heldBack: { newPerDay: heldByNew, reviewsPerDay: due.review - reviews + (due.new - fresh - heldByNew) },
  };
}

/** Which cards are due and the counts, as of `nowText`; a kept one is reused while `stillTrue` (dueCache.ts). */
interface DuePick {
  head: { deckId: string; title: string };
  until?: string;
  shown: Array<{
    /** The deck_cards row the card was made from: a remake reuses the card while its row is the same. */
    row: Row;
    card: Omit<DueCard, 'nextIntervals' | 'nextDues'>;
    schedule: StoredSchedule;
    /** The buttons' distances after `from` (ms, in REVIEW_RATINGS order) for one nextDuesKey. */
    buttons?: { key: number; ms: number[] };
  }>;
  tail: DueTail;
  options: DeckOptions;
  nowText: string;
  dayStart: string;
  /** The first moment after `nowText` at which a card comes due or a burying ends (null: none waits). */
  changesAt: string | null;
}

export function dueQueue(
  store: Store,
  decks: Decks,
  deckId: string,
  opts: { now?: Date; limit?: number; until?: Date },
) {
  return dueAnswer(store, decks, deckId, opts, (shown, now, nowText, options): DueCard => ({
    ...shown.card,
    ...buttons(shown, now, nowText, options),
  }));
}

/** A card of a pick as kept, but for its buttons. */
export type ShownCard = DuePick['shown'][number];

/** dueQueue's answer with each card as `cardOf` makes it (dueWire.ts: as JSON text). */
export function dueAnswer<C>(
  store: Store,
  decks: Decks,
  deckId: string,
  opts: { now?: Date; limit?: number; until?: Date },
  cardOf: (shown: ShownCard, now: Date, nowText: string, options: DeckOptions) => C,
) {
  const now = opts.now ?? new Date();
  const nowText = now.toISOString();
  // ?until= plans are not kept (rare); the plain queue is, by deck and limit.
  const pick = opts.until
    ? pickDueCards(store, decks, deckId, now, opts)
    : keptPicks<DuePick>(store).get(
        `${deckId} ${opts.limit ?? ''}`,
        (kept) => stillTrue(kept, now, nowText),
        (stale) => pickDueCards(store, decks, deckId, now, opts, stale),
      );
  const cards = pick.shown.map((shown) => cardOf(shown, now, nowText, pick.options));
  return {
    ...pick.head,
    now: nowText,
    ...(pick.until !== undefined ? { until: pick.until } : {}),
    cards,
    count: cards.length,
    ...pick.tail,
  };
}

/**
 * A pick made at `kept.nowText` answers the same at `nowText` when the clock has not gone back, no card has
 * come due nor burying ended since (every one not due then comes due at nextDueAt or later), and the study
 * day is the same (its start bounds the studied-today counts, its end dueTodayCount).
 */
function stillTrue(kept: DuePick, now: Date, nowText: string): boolean {
  if (nowText < kept.nowText || (kept.changesAt !== null && nowText >= kept.changesAt)) return false;
  return studyDay(now, kept.options.dayStartHour).start.toISOString() === kept.dayStart;
}

type DueTail = {
  dueCount: number;
  newCount: number;
  learningCount: number;
  reviewCount: number;
  heldBack: { newPerDay: number; reviewsPerDay: number };
  limits: {
    presetId: string;
    newPerDay: number;
    reviewsPerDay: number;
    newStudiedToday: number;
    reviewsStudiedToday: number;
  };
  dueTodayCount: number;
  reviewedToday: number;
  dayStartsAt: string;
  nextDueAt: string | null;
};

function pickDueCards(
  store: Store,
  decks: Decks,
  deckId: string,
  now: Date,
  opts: { limit?: number; until?: Date },
  stale?: DuePick,
): DuePick {
  // The deck's title without its summary counts (four scans of its cards); get() answers the refusals.
  const deck =
    store.get<{ title: string }>(`SELECT title FROM topics WHERE topicid = ? AND kind = 'deck' AND hidden = 0`, [
      deckId,
    ]) ?? decks.get(deckId);
  const { presetId, options } = deckOptionsOf(store, deckId);
  const nowText = now.toISOString();
  const horizon = opts.until?.toISOString() ?? nowText;
  const day = studyDay(now, options.dayStartHour);
  const dayStart = day.start.toISOString();
  const count = (sql: string, params: (string | number)[]) => store.get<{ n: number }>(sql, params)?.n ?? 0;
  const dueNow = dueByState(store, deckId, horizon, nowText, day.end.toISOString());
  const studied = studiedSince(store, deckId, dayStart);
  // ?until= plans ahead: everything due by then, in the order added, without today's limits.
  const limited = opts.until
    ? { reviews: dueNow.review, new: dueNow.new, heldBack: { newPerDay: 0, reviewsPerDay: 0 } }
    : applyLimits(options, dueNow, studied);
  const max = opts.limit ?? Number.MAX_SAFE_INTEGER;
  const pick = (states: number[], limit: number) => pickDue(store, { deckId, states, horizon, nowText, limit });
  const rows: Row[] = opts.until
    ? store.all<Row>(
        `SELECT *, rowid AS seq FROM deck_cards WHERE deck_id = ? AND ${DUE_SQL} <= ? AND ${STUDIED} ORDER BY rowid LIMIT ?`,
        [deckId, horizon, nowText, max],
      )
    : pickInOrder(max, [
        (left) => pick([1, 3], left),
        (left) => pick([2], Math.min(limited.reviews, left)),
        (left) => pick([0], Math.min(limited.new, left)),
      ]);
  const nextDue = nextDueAt(store, deckId, nowText);
  const buryingEnds = buryingEndsAt(store, deckId, nowText);
  const tail: DueTail = {
    dueCount: dueNow.learning + limited.reviews + limited.new,
    newCount: limited.new,
    learningCount: dueNow.learning,
    reviewCount: limited.reviews,
    heldBack: limited.heldBack,
    limits: {
      presetId,
      newPerDay: options.newPerDay,
      reviewsPerDay: options.reviewsPerDay,
      newStudiedToday: studied.new,
      reviewsStudiedToday: studied.review,
    },
    dueTodayCount: dueNow.today,
    reviewedToday: count('SELECT count(*) AS n FROM review_logs WHERE deck_id = ? AND reviewed_at >= ?', [
      deckId,
      dayStart,
    ]),
    dayStartsAt: dayStart,
    nextDueAt: nextDue,
  };
  return {
    head: { deckId, title: deck.title },
    ...(opts.until ? { until: horizon } : {}),
    shown: shownCards(store, rows, stale),
    tail,
    options,
    nowText,
    dayStart,
    changesAt: nextDue !== null && (buryingEnds === null || nextDue < buryingEnds) ? nextDue : buryingEnds,
  };
}

/** Each class's rows after the ones before, until `max` are picked: no row past `max` is read. */
function pickInOrder(max: number, classes: ReadonlyArray<(left: number) => Row[]>): Row[] {
  const rows: Row[] = [];
  for (const pick of classes) if (rows.length < max) rows.push(...pick(max - rows.length));
  return rows;
}

/**
 * The cards of `rows` as shown but for the buttons, their notes and faces read for all of them at once; a card of
 * `stale` (a pick no face-read table was written since: dueCache.ts) is reused, buttons and all, if its row is
 * the same.
 */
function shownCards(store: Store, rows: readonly Row[], stale?: DuePick): DuePick['shown'] {
  const before = new Map(stale?.shown.map((s) => [s.row.card_note_id, s]));
  const reused = rows.map((row) => {
    const old = before.get(row.card_note_id);
    return old && sameRow(old.row, row) ? old : undefined;
  });
  const fresh = rows.filter((_, i) => !reused[i]);
  const reads = fresh.length ? readFaces(store, fresh) : undefined;
  return rows.map((row, i) => {
    if (reused[i] || !reads) return reused[i]!;
    const resolvedNoteId = reads.resolved(row.source_note_id);
    const sourceAlive = reads.alive(row.source_note_id);
    const faces = facesOf(store, row, resolvedNoteId, sourceAlive, reads.of(resolvedNoteId, row.question_content_id));
    const schedule = parseSchedule(row.fsrs, row.due_at ?? row.created_at);
    const card = {
      cardNoteId: row.card_note_id,
      sourceNoteId: row.source_note_id,
      resolvedNoteId,
      sourceAlive,
      ...faces,
      ...viewOf(schedule),
      flag: row.flag ?? 0,
      leech: !!row.leech,
    };
    return { row, card, schedule };
  });
}

/** The interval and due date under each button at `now`; ts-fsrs is asked again only when nextDuesKey moves. */
export function buttons(shown: ShownCard, now: Date, nowText: string, options: DeckOptions) {
  const { schedule } = shown;
  // Intervals from now, or from the last review if a client clock placed it later.
  const from = schedule.last_review && schedule.last_review > nowText ? new Date(schedule.last_review) : now;
  const key = nextDuesKey(schedule, from);
  if (shown.buttons?.key !== key) {
    const dues = nextDues(schedule, from, options);
    shown.buttons = { key, ms: REVIEW_RATINGS.map((r) => dues[r].getTime() - from.getTime()) };
  }
  const { ms } = shown.buttons;
  const nextIntervals = {} as Record<ReviewRating, string>;
  const nextDueDates = {} as Record<ReviewRating, string>;
  REVIEW_RATINGS.forEach((r, i) => {
    nextIntervals[r] = formatInterval(ms[i]);
    nextDueDates[r] = new Date(from.getTime() + ms[i]).toISOString();
  });
  return { nextIntervals, nextDues: nextDueDates };
}
