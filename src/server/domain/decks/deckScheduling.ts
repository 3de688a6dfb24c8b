import type * as TsFsrs from 'ts-fsrs' with { 'resolution-mode': 'import' };
import type { Card, Grade } from 'ts-fsrs' with { 'resolution-mode': 'import' };

// ts-fsrs ships a CommonJS build (its `require` export) beside the ESM one;
// its typings are ESM-only, hence the type-only imports above.
const { createEmptyCard, dateDiffInDays, default_w, fsrs, generatorParameters, Rating, State } =
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('ts-fsrs') as typeof TsFsrs;
type State = TsFsrs.State;

/**
 * Review scheduling: FSRS through ts-fsrs (no fuzz) with the deck's desired
 * retention, maximum interval and (re)learning steps, so "due", "again" and
 * "reschedule" mean what they mean in Anki. The only module that imports
 * ts-fsrs; the rest of the bridge sees plain JSON with ISO dates.
 */

/** What of a deck's options ts-fsrs reads. */
export interface SchedulerOptions {
  desiredRetention: number;
  maximumInterval: number;
  learningSteps: readonly string[];
  relearningSteps: readonly string[];
  /** FSRS weights fitted to the person (null or absent: FSRS-6's defaults). */
  fsrsParameters?: readonly number[] | null;
}

export type ReviewRating = 'again' | 'hard' | 'good' | 'easy';
export type ReviewState = 'new' | 'learning' | 'review' | 'relearning';

/** FSRS-6's default weights (what a deck without fitted ones schedules with). */
export const DEFAULT_FSRS_WEIGHTS: readonly number[] = Object.freeze([...default_w]);

export const REVIEW_RATINGS: readonly ReviewRating[] = ['again', 'hard', 'good', 'easy'];

/** The ts-fsrs card as stored in `deck_cards.fsrs` (dates as ISO strings). */
export interface StoredSchedule {
  due: string;
  stability: number;
  difficulty: number;
  elapsed_days: number;
  scheduled_days: number;
  learning_steps: number;
  reps: number;
  lapses: number;
  state: number;
  last_review?: string | null;
}

/** What GET cards shows of a schedule. */
export interface ScheduleView {
  due: string;
  state: ReviewState;
  reps: number;
  lapses: number;
  stability: number;
  difficulty: number;
  lastReviewAt: string | null;
}

const defaultScheduler = fsrs();
const schedulers = new Map<string, ReturnType<typeof fsrs>>();

/** One ts-fsrs scheduler per distinct option set (decks sharing a preset share it). */
function schedulerFor(o: SchedulerOptions | undefined) {
  if (!o) return defaultScheduler;
  const w = o.fsrsParameters?.length ? [...o.fsrsParameters] : undefined;
  const key = JSON.stringify([o.desiredRetention, o.maximumInterval, o.learningSteps, o.relearningSteps, w]);
  let s = schedulers.get(key);
  if (!s) {
    if (schedulers.size > 64) schedulers.clear();
    s = fsrs(
      generatorParameters({
        request_retention: o.desiredRetention,
        maximum_interval: o.maximumInterval,
        learning_steps: [...o.learningSteps] as TsFsrs.Steps,
        relearning_steps: [...o.relearningSteps] as TsFsrs.Steps,
        enable_fuzz: false,
        ...(w ? { w } : {}),
      }),
    );
    schedulers.set(key, s);
  }
  return s;
}

const GRADES: Record<ReviewRating, Grade> = {
  again: Rating.Again,
  hard: Rating.Hard,
  good: Rating.Good,
  easy: Rating.Easy,
};
const STATES: Record<State, ReviewState> = {
  [State.New]: 'new',
  [State.Learning]: 'learning',
  [State.Review]: 'review',
  [State.Relearning]: 'relearning',
};

function toStored(card: Card): StoredSchedule {
  return {
    due: card.due.toISOString(),
    stability: card.stability,
    difficulty: card.difficulty,
    elapsed_days: card.elapsed_days,
    scheduled_days: card.scheduled_days,
    learning_steps: card.learning_steps,
    reps: card.reps,
    lapses: card.lapses,
    state: card.state,
    last_review: card.last_review ? card.last_review.toISOString() : null,
  };
}

function toCard(s: StoredSchedule): Card {
  return {
    due: new Date(s.due),
    stability: s.stability,
    difficulty: s.difficulty,
    elapsed_days: s.elapsed_days,
    scheduled_days: s.scheduled_days,
    learning_steps: s.learning_steps,
    reps: s.reps,
    lapses: s.lapses,
    state: s.state,
    ...(s.last_review ? { last_review: new Date(s.last_review) } : {}),
  };
}

/** Parses `deck_cards.fsrs`; a missing or unreadable value counts as a new card due at `fallbackDue`. */
export function parseSchedule(json: string | null, fallbackDue: string): StoredSchedule {
  if (json) {
    try {
      const s = JSON.parse(json) as StoredSchedule;
      if (typeof s.due === 'string' && typeof s.state === 'number') return s;
    } catch {
      // fall through: treat as new
    }
  }
  return { ...newSchedule(new Date(fallbackDue)), due: fallbackDue };
}

/** A fresh card, due at `now` (a new review card, or one rescheduled by adding its source again). */
export function newSchedule(now: Date): StoredSchedule {
  return toStored(createEmptyCard(now));
}

/** A new card's schedule, but for its due: what a `deck_cards.fsrs` of NULL reads back as (parseSchedule). */
const BLANK = newSchedule(new Date(0));
const BLANK_KEYS = Object.keys(BLANK) as (keyof StoredSchedule)[];

/**
 * What `deck_cards.fsrs` stores for `s` beside a `due_at` of `s.due`: NULL for a new card's schedule, which
 * parseSchedule gives back whole from due_at (an import of 40,000 cards stored 26,700 such 175-byte JSONs).
 */
export function fsrsColumn(s: Readonly<StoredSchedule>): string | null {
  const blank =
    s.state === 0 &&
    Object.keys(s).length === BLANK_KEYS.length &&
    BLANK_KEYS.every((k) => k === 'due' || s[k] === BLANK[k]);
  return blank ? null : JSON.stringify(s);
}

/** ts-fsrs's ReviewLog of one grade, dates as ISO strings: the card's values before the grade. */
export interface StoredReviewLog {
  rating: number;
  state: number;
  due: string;
  stability: number;
  difficulty: number;
  elapsed_days: number;
  last_elapsed_days: number;
  scheduled_days: number;
  learning_steps: number;
  review: string;
}

export interface ReviewOutcome {
  schedule: StoredSchedule;
  state: ReviewState;
  scheduledDays: number;
  log: StoredReviewLog;
}

/** Applies one review at `at`. */
export function review(
  schedule: StoredSchedule,
  rating: ReviewRating,
  at: Date,
  options?: SchedulerOptions,
): ReviewOutcome {
  const { card: next, log } = schedulerFor(options).next(toCard(schedule), at, GRADES[rating]);
  return {
    schedule: toStored(next),
    state: STATES[next.state],
    scheduledDays: next.scheduled_days,
    log: {
      rating: log.rating,
      state: log.state,
      due: log.due.toISOString(),
      stability: log.stability,
      difficulty: log.difficulty,
      elapsed_days: log.elapsed_days,
      last_elapsed_days: log.last_elapsed_days,
      scheduled_days: log.scheduled_days,
      learning_steps: log.learning_steps,
      review: log.review.toISOString(),
    },
  };
}

/** ts-fsrs's grade number of a rating (1 again … 4 easy), and back. */
export const gradeOf = (rating: ReviewRating): number => GRADES[rating];
export const ratingOf = (grade: number): ReviewRating | undefined => REVIEW_RATINGS[grade - 1];
export const stateName = (state: number): ReviewState => STATES[state as State] ?? 'new';

/** The due date each rating would give at `at`. */
export function nextDues(schedule: StoredSchedule, at: Date, options?: SchedulerOptions): Record<ReviewRating, Date> {
  const log = schedulerFor(options).repeat(toCard(schedule), at);
  return {
    again: log[Rating.Again].card.due,
    hard: log[Rating.Hard].card.due,
    good: log[Rating.Good].card.due,
    easy: log[Rating.Easy].card.due,
  };
}

/**
 * All that nextDues reads of `at` besides the moment itself: without fuzz, ts-fsrs makes each due date `at` plus
 * whole minutes or days fixed by the schedule, the options and the UTC dates from the last review to `at` (its
 * elapsed days; 0 for a new card). Two moments with the same key give due dates the same distance after each
 * (test/unit/deckScheduling.test.ts holds ts-fsrs to it), so /due reckons a kept card's buttons once a day.
 */
export function nextDuesKey(schedule: StoredSchedule, at: Date): number {
  const fresh = (schedule.state as State) === State.New;
  return !fresh && schedule.last_review ? dateDiffInDays(new Date(schedule.last_review), at) : 0;
}

/** The intervals under the four buttons, as Anki words them ("1m", "10m", "3d", "1.5mo"). */
export function nextIntervals(
  schedule: StoredSchedule,
  at: Date,
  options?: SchedulerOptions,
): Record<ReviewRating, string> {
  const dues = nextDues(schedule, at, options);
  const out = {} as Record<ReviewRating, string>;
  for (const r of REVIEW_RATINGS) out[r] = formatInterval(dues[r].getTime() - at.getTime());
  return out;
}

const round1 = (n: number) => String(Math.round(n * 10) / 10);

/** A duration in a short human form: <1h in minutes, <1d in hours, <30d in days, <1y in months, else years. */
export function formatInterval(ms: number): string {
  const minutes = Math.max(0, ms) / 60_000;
  if (minutes < 60) return `${Math.max(1, Math.round(minutes))}m`;
  const hours = minutes / 60;
  if (hours < 24) return `${Math.round(hours)}h`;
  const days = hours / 24;
  if (days < 30) return `${Math.round(days)}d`;
  if (days < 365) return `${round1(days / 30)}mo`;
  return `${round1(days / 365)}y`;
}

export function viewOf(s: StoredSchedule): ScheduleView {
  return {
    due: s.due,
    state: STATES[s.state as State] ?? 'new',
    reps: s.reps,
    lapses: s.lapses,
    stability: s.stability,
    difficulty: s.difficulty,
    lastReviewAt: s.last_review ?? null,
  };
}
