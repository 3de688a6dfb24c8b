/**
 * Deck options, as Anki's deck options screen holds them: daily limits,
 * FSRS's desired retention and maximum interval, (re)learning steps, bury
 * siblings, leeches and when the study day starts. Pure: the values, their
 * defaults (Anki's) and the study day they imply.
 */

/** A (re)learning step in ts-fsrs's notation: minutes, hours or days ("1m", "10m", "1h", "2d"). */
export type Step = `${number}${'m' | 'h' | 'd'}`;

export type LeechAction = 'suspend' | 'tag';

export interface DeckOptions {
  /** New cards introduced per study day. */
  newPerDay: number;
  /** Review cards shown per study day (new cards count against it too, as in Anki's v3 scheduler). */
  reviewsPerDay: number;
  /** FSRS's target probability of recall at the due date (0.70..0.99). */
  desiredRetention: number;
  learningSteps: Step[];
  relearningSteps: Step[];
  /** Longest interval FSRS may give, in days. */
  maximumInterval: number;
  buryNewSiblings: boolean;
  buryReviewSiblings: boolean;
  buryInterdayLearningSiblings: boolean;
  /** Lapses that make a card a leech (then again every half of it, as Anki does). */
  leechThreshold: number;
  leechAction: LeechAction;
  /** Local hour (0..23) at which a new study day begins (Anki's "next day starts at"). */
  dayStartHour: number;
  /**
   * FSRS's model weights (17, 19 or 21 numbers: FSRS-4.5, -5, -6), fitted to
   * the person by POST /decks/{id}/optimize or brought by an Anki package;
   * null: FSRS-6's defaults.
   */
  fsrsParameters: number[] | null;
}

export const DEFAULT_OPTIONS: Readonly<DeckOptions> = Object.freeze<DeckOptions>({
  newPerDay: 20,
  reviewsPerDay: 200,
  desiredRetention: 0.9,
  learningSteps: ['1m', '10m'],
  relearningSteps: ['10m'],
  maximumInterval: 36500,
  buryNewSiblings: false,
  buryReviewSiblings: false,
  buryInterdayLearningSiblings: false,
  leechThreshold: 8,
  leechAction: 'tag',
  dayStartHour: 4,
  fsrsParameters: null,
});

/** The weight counts ts-fsrs reads: FSRS-4.5 (17), FSRS-5 (19), FSRS-6 (21). */
export const FSRS_PARAMETER_COUNTS: readonly number[] = [17, 19, 21];

export const DEFAULT_PRESET_ID = 'default';
export const DEFAULT_PRESET_NAME = 'Default';

export const STEP_PATTERN = /^(\d+(\.\d+)?)(m|h|d)$/;

/** Stored options read back over the defaults: a preset written by an older version lacks newer keys. */
export function withDefaults(stored: Partial<DeckOptions> | null | undefined): DeckOptions {
  return { ...DEFAULT_OPTIONS, ...(stored ?? {}) };
}

/**
 * The study day holding `now`: from the last `dayStartHour` local time at or
 * before `now` to the same hour of the next calendar day.
 */
export function studyDay(now: Date, dayStartHour: number): { start: Date; end: Date } {
  const y = now.getFullYear();
  const m = now.getMonth();
  const d = now.getDate() - (now.getHours() < dayStartHour ? 1 : 0);
  return { start: new Date(y, m, d, dayStartHour), end: new Date(y, m, d + 1, dayStartHour) };
}

/** Whether a lapse count makes a card a leech: at the threshold, then every half threshold (Anki's rule). */
export function isLeechLapse(lapses: number, threshold: number): boolean {
  if (lapses < threshold) return false;
  const every = Math.max(1, Math.ceil(threshold / 2));
  return (lapses - threshold) % every === 0;
}
