/**
 * What the optimizer thread is given and answers: plain numbers, so the
 * thread needs nothing of the library and the message is cheap to copy.
 */

/** One card's grades, oldest first: rating 1..4, days since the previous grade (0 for the first), and when (epoch ms). */
export interface CardHistory {
  ratings: number[];
  deltaDays: number[];
  at: number[];
}

export interface FitInput {
  cards: CardHistory[];
  /** Grades at or after this time (epoch ms) are the held-out tail: fitted on the rest, scored on these. */
  splitAt: number;
  /** The weights in use now (null: FSRS's defaults), scored on the same tail. */
  current: number[] | null;
  numRelearningSteps: number;
}

export interface Score {
  logLoss: number;
  rmseBins: number;
}

export interface FitResult {
  parameters: number[];
  /** FSRS items (a grade with the card's history before it) the fit learned from, and those it was scored on. */
  trainItems: number;
  testItems: number;
  scores: { default: Score; current: Score | null; fitted: Score };
}

/** Building FSRS's items from the histories, fsrs-rs's training (its own steps), scoring on the tail. */
export type FitStage = 'prepare' | 'fit' | 'score';

/** Messages from the thread: progress, then one result or one failure. */
export type FitMessage =
  | { kind: 'progress'; stage: FitStage; current: number; total: number }
  | { kind: 'result'; result: FitResult }
  | { kind: 'unavailable'; loadError: string }
  | { kind: 'notEnough'; trainItems: number; testItems: number; message: string }
  | { kind: 'failed'; message: string };
