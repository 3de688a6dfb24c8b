import type { Store } from '../../ground/store/store';
import type { DeckCardRow } from './deckCardRows';
import { countDueBefore, dueDays, total } from './dueDays';

/**
 * The due queue's SQL: which cards are due, counted and picked through the
 * index of migration 15 (deck, queue, state, due moment, creation), so a
 * 100k-card deck reads index entries for its counts and only the rows it
 * shows. A card is studied when its queue is empty or its burying has ended;
 * each query reads those two kinds apart, as two ranges of that index.
 */

/** A card takes part in studying: not suspended, and not buried until a later time. */
export const STUDIED = `(queue IS NULL OR (queue = 'buried' AND coalesce(buried_until, '') <= ?))`;
/** FSRS state of a row (0 new … 3 relearning): the column triggers copy out of the fsrs JSON (migration 14). */
export const STATE_SQL = 'state';
/** When a row falls due; migration 15 indexes this very expression. */
export const DUE_SQL = 'coalesce(due_at, created_at)';

/** The two kinds of studied card, as conditions with their parameter (`now`, ISO). */
const KINDS = [
  { where: 'queue IS NULL', params: (_now: string) => [] as string[] },
  { where: `queue = 'buried' AND coalesce(buried_until, '') <= ?`, params: (now: string) => [now] },
];

export type DueRow = DeckCardRow & { seq: number; flag: number; leech: number; d: string };

/**
 * Cards due by `horizon` by FSRS state (learning and relearning together), and
 * those due before `dayEnd` in any state (the day's count). The studied queue
 * is counted from its due dates (dueDays.ts); buried cards whose burying has
 * ended (few: a grade or an unbury clears the rest) from their own index.
 */
export function dueByState(store: Store, deckId: string, horizon: string, nowText: string, dayEnd: string) {
  const days = dueDays(store, deckId, '', [0, 1, 2, 3]);
  const byState = countDueBefore(store, deckId, '', days, { at: horizon, inclusive: true });
  let today = total(countDueBefore(store, deckId, '', days, { at: dayEnd, inclusive: false }));
  const upTo = horizon > dayEnd ? horizon : dayEnd;
  for (const r of store.all<{ s: number; due: number | null; today: number | null }>(
    `SELECT state AS s, sum(${DUE_SQL} <= ?) AS due, sum(${DUE_SQL} < ?) AS today FROM deck_cards
     WHERE deck_id = ? AND ${KINDS[1].where} AND state IN (0, 1, 2, 3) AND ${DUE_SQL} <= ? GROUP BY state`,
    [horizon, dayEnd, deckId, nowText, upTo],
  )) {
    byState.set(r.s, (byState.get(r.s) ?? 0) + (r.due ?? 0));
    today += r.today ?? 0;
  }
  return {
    learning: (byState.get(1) ?? 0) + (byState.get(3) ?? 0),
    review: byState.get(2) ?? 0,
    new: byState.get(0) ?? 0,
    today,
  };
}

/** The first `limit` studied cards in `states` due by `horizon`, by due moment, creation, then insertion. */
export function pickDue(
  store: Store,
  o: { deckId: string; states: readonly number[]; horizon: string; nowText: string; limit: number },
): DueRow[] {
  if (o.limit <= 0) return [];
  const rows = KINDS.flatMap((k) =>
    store.all<DueRow>(
      `SELECT *, rowid AS seq, ${DUE_SQL} AS d FROM deck_cards
       WHERE deck_id = ? AND ${k.where} AND state IN (${o.states.join(', ')}) AND ${DUE_SQL} <= ?
       ORDER BY ${DUE_SQL}, created_at, rowid LIMIT ?`,
      [o.deckId, ...k.params(o.nowText), o.horizon, o.limit],
    ),
  );
  const key = (r: DueRow): [string, string, number] => [r.d, r.created_at, r.seq];
  return rows
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
      return 0;
    })
    .slice(0, o.limit);
}

/** What the study day has used of the limits: new cards first studied, and reviews of review-state cards. */
export function studiedSince(store: Store, deckId: string, dayStart: string) {
  const count = (sql: string, params: (string | number)[]) => store.get<{ n: number }>(sql, params)?.n ?? 0;
  return {
    new: count(
      'SELECT count(DISTINCT card_note_id) AS n FROM review_logs WHERE deck_id = ? AND reviewed_at >= ? AND state_before = 0',
      [deckId, dayStart],
    ),
    review: count('SELECT count(*) AS n FROM review_logs WHERE deck_id = ? AND reviewed_at >= ? AND state_before = 2', [
      deckId,
      dayStart,
    ]),
  };
}
