/**
 * What the optimizer thread is given and answers: plain numbers, so the
 * thread needs nothing of the library; the grades go as typed arrays whose
 * memory moves to the thread (copying 100,000 grades as objects held the
 * event loop for 60-500 ms).
 */

/** One card's grades, oldest first: rating 1..4, days since the previous grade (0 for the first), and when (epoch ms). */
export interface CardHistory {
  ratings: number[];
  deltaDays: number[];
  at: number[];
}

/** Every card's grades end to end in typed arrays (moved to the thread, not copied): card i is [starts[i], starts[i+1]). */
export interface PackedHistories {
  starts: Int32Array;
  ratings: Uint8Array;
  deltaDays: Int32Array;
  at: Float64Array;
}

export interface FitInput {
  histories: PackedHistories;
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

/** Packs per-card histories for the thread. */
export function packHistories(cards: readonly CardHistory[]): PackedHistories {
  const total = cards.reduce((n, c) => n + c.ratings.length, 0);
  const p: PackedHistories = {
    starts: new Int32Array(cards.length + 1),
    ratings: new Uint8Array(total),
    deltaDays: new Int32Array(total),
    at: new Float64Array(total),
  };
  let k = 0;
  cards.forEach((c, i) => {
    p.starts[i] = k;
    p.ratings.set(c.ratings, k);
    p.deltaDays.set(c.deltaDays, k);
    p.at.set(c.at, k);
    k += c.ratings.length;
  });
  p.starts[cards.length] = k;
  return p;
}
