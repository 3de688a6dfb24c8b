import type { Store } from '../../ground/store/store';

/**
 * How many of a deck's cards fall due before a moment, by FSRS state, read
 * from deck_due_days (migration 17: cards by queue, state and UTC due date,
 * kept by triggers) plus the index entries of the bound's own date: the dates
 * before it are summed from a few rows, and within it the index range from
 * the bound to the nearer end of the date is counted and added or taken off.
 * Dates and moments compare as the ISO strings the queries compare, so a date
 * row before the bound's date holds only cards due before the bound.
 */

const DUE = 'coalesce(due_at, created_at)';
/** Above any character a due moment holds: `date || TOP` ends the date's range. */
const TOP = 'char(1114111)';

/** '' is the studied queue (queue IS NULL); 'buried' counts every buried card, whenever its burying ends. */
export type DueQueue = '' | 'buried';

export interface DueBound {
  /** An ISO moment; '' counts nothing. */
  at: string;
  /** Whether a card due exactly `at` counts. */
  inclusive: boolean;
}

/** The deck's date rows of `queue` and `states`: [state, date, cards], by date. */
export function dueDays(store: Store, deckId: string, queue: DueQueue, states: readonly number[]) {
  return store.all<{ s: number; day: string; n: number }>(
    `SELECT state AS s, day, n FROM deck_due_days WHERE deck_id = ? AND queue = ? AND state IN (${states.join(', ')})
     ORDER BY day`,
    [deckId, queue],
  );
}

/** Cards of `queue` in `states` due before `bound`, by state, from the deck's date rows (dueDays). */
export function countDueBefore(
  store: Store,
  deckId: string,
  queue: DueQueue,
  days: ReadonlyArray<{ s: number; day: string; n: number }>,
  bound: DueBound,
): Map<number, number> {
  const counts = new Map<number, number>();
  if (!bound.at) return counts;
  const date = bound.at.slice(0, 10);
  // Late in its date the rest of the date is the shorter range: count it and take it off the whole date.
  const late = bound.at.slice(11, 13) >= '12';
  for (const d of days) if (d.day < date || (late && d.day === date)) counts.set(d.s, (counts.get(d.s) ?? 0) + d.n);
  const states = [...new Set(days.map((d) => d.s))];
  if (!states.length) return counts;
  const range = late
    ? `${DUE} ${bound.inclusive ? '>' : '>='} ? AND ${DUE} < ? || ${TOP}`
    : `${DUE} >= ? AND ${DUE} ${bound.inclusive ? '<=' : '<'} ?`;
  for (const r of store.all<{ s: number; n: number }>(
    `SELECT state AS s, count(*) AS n FROM deck_cards
     WHERE deck_id = ? AND ${queue ? `queue = '${queue}'` : 'queue IS NULL'} AND state IN (${states.join(', ')}) AND ${range}
     GROUP BY state`,
    [deckId, ...(late ? [bound.at, date] : [date, bound.at])],
  ))
    counts.set(r.s, (counts.get(r.s) ?? 0) + (late ? -r.n : r.n));
  return counts;
}

/**
 * Cards of `queues` in `states` due before each of `bounds` (ISO moments, '' counts nothing), all states
 * together: the date rows summed once, and each bound's own date counted in one statement.
 */
export function countDueBeforeEach(
  store: Store,
  deckId: string,
  queues: readonly DueQueue[],
  states: readonly number[],
  bounds: readonly string[],
): number[] {
  const inStates = `state IN (${states.join(', ')})`;
  const days = store.all<{ day: string; n: number }>(
    `SELECT day, sum(n) AS n FROM deck_due_days WHERE deck_id = ? AND queue IN (${queues.map(() => '?').join(', ')})
     AND ${inStates} GROUP BY day ORDER BY day`,
    [deckId, ...queues],
  );
  // Each bound's range within its date, early or late as countDueBefore reads it; '' reads nothing.
  const ranges = bounds.map((at) => {
    const date = at.slice(0, 10);
    const late = at.slice(11, 13) >= '12';
    return { at, date, late, lo: !at ? '' : late ? at : date, hi: !at ? '' : late ? `${date}\u{10FFFF}` : at };
  });
  const counted = perRange(store, deckId, queues, inStates, ranges);
  return ranges.map((r, i) => {
    if (!r.at) return 0;
    let n = 0;
    for (const d of days) {
      if (d.day > r.date || (d.day === r.date && !r.late)) break;
      n += d.n;
    }
    return r.late ? n - counted[i] : n + counted[i];
  });
}

/** Cards of `queues` due in each [lo, hi), counted by index ranges in one statement. */
function perRange(
  store: Store,
  deckId: string,
  queues: readonly DueQueue[],
  inStates: string,
  ranges: ReadonlyArray<{ lo: string; hi: string }>,
): number[] {
  if (!ranges.length) return [];
  const values = ranges.map((_, i) => `(${i}, ?${2 + 2 * i}, ?${3 + 2 * i})`).join(', ');
  const count = (q: DueQueue) =>
    `(SELECT count(*) FROM deck_cards WHERE deck_id = ?1 AND ${q ? `queue = '${q}'` : 'queue IS NULL'} AND ${inStates}
      AND ${DUE} >= r.lo AND ${DUE} < r.hi)`;
  return store
    .all<{ n: number }>(
      `WITH r(i, lo, hi) AS (VALUES ${values}) SELECT ${queues.map(count).join(' + ')} AS n FROM r ORDER BY i`,
      [deckId, ...ranges.flatMap((r) => [r.lo, r.hi])],
    )
    .map((r) => r.n);
}

/** The sum of a count by state. */
export const total = (m: ReadonlyMap<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
