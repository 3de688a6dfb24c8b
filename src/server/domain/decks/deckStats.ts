import type { Store } from '../../ground/store/store';
import type { Decks } from '../library/decks';
import { studyDay } from './deckOptions';
import { deckOptionsOf } from './deckPresets';
import { DUE_SQL, STATE_SQL, STUDIED } from './dueCounts';
import { retrievabilityOf } from './deckRetrievability';

/**
 * A deck's statistics as Anki shows them: card counts by state, the due
 * forecast per study day, reviews per day with time spent, and true retention
 * (the pass rate of reviews of cards in review state, overall and by the
 * interval the card had), and on request the cards' recall probability now
 * (deckRetrievability.ts). Days are the deck's study days (dayStartHour),
 * named by their local date.
 */

/** Interval buckets for true retention, in days since the last review (Anki's young/mature split at 21). */
const BUCKETS: ReadonlyArray<{ label: string; below: number }> = [
  { label: '<7d', below: 7 },
  { label: '7-20d', below: 21 },
  { label: '21-89d', below: 90 },
  { label: '90d+', below: Infinity },
];

const localDate = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

export function deckStats(
  store: Store,
  decks: Decks,
  deckId: string,
  opts: { forecastDays: number; historyDays: number; now?: Date; retrievability?: boolean },
) {
  // Existence only: get() also counts the deck's cards.
  if (!store.get(`SELECT 1 AS x FROM topics WHERE topicid = ? AND kind = 'deck' AND hidden = 0`, [deckId]))
    decks.get(deckId);
  const { options } = deckOptionsOf(store, deckId);
  const now = opts.now ?? new Date();
  const nowText = now.toISOString();
  const today = studyDay(now, options.dayStartHour);
  const shift = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + n, d.getHours());

  const counts = countsByState(store, deckId, nowText);
  // Forecast: cards in the studied queue by the study day they fall due; overdue ones count today.
  const forecast = new Map<string, number>();
  const days = Array.from({ length: opts.forecastDays }, (_, i) => shift(today.start, i));
  const dueIn = (queue: string) =>
    `(SELECT count(*) FROM deck_cards WHERE deck_id = ?1 AND ${queue} AND ${STATE_SQL} IN (1, 2, 3)
      AND ${DUE_SQL} >= days.a AND ${DUE_SQL} < days.b)`;
  const counted = perStudyDay<{ n: number }>(
    store,
    [deckId],
    // The first day also holds what is overdue: it starts at the empty string.
    days.map((d, i) => [i ? d.toISOString() : '', shift(d, 1).toISOString()]),
    `${dueIn('queue IS NULL')} + ${dueIn(`queue = 'buried'`)} AS n`,
  );
  days.forEach((d, i) => forecast.set(localDate(d), counted[i].n));

  // Reviews per day and true retention over the history window.
  const { perDay, retention } = reviewsByDay(
    store,
    deckId,
    Array.from({ length: opts.historyDays }, (_, i) => shift(today.start, i - opts.historyDays + 1)),
    shift,
  );
  const total = retention.reduce((a, b) => ({ reviews: a.reviews + b.reviews, passed: a.passed + b.passed }), {
    reviews: 0,
    passed: 0,
  });
  const rate = (x: { reviews: number; passed: number }) => (x.reviews ? x.passed / x.reviews : null);
  return {
    deckId,
    now: nowText,
    dayStartsAt: today.start.toISOString(),
    counts,
    forecast: [...forecast].map(([date, due]) => ({ date, due })),
    reviewsPerDay: [...perDay].map(([date, d]) => ({ date, ...d })),
    trueRetention: {
      sinceDays: opts.historyDays,
      reviews: total.reviews,
      passed: total.passed,
      rate: rate(total),
      byInterval: retention.map((b) => ({ ...b, rate: rate(b) })),
    },
    ...(opts.retrievability ? { retrievability: retrievabilityOf(store, deckId, now, options.fsrsParameters) } : {}),
  };
}

/**
 * GET /decks/{id}: the deck's summary (size, dueCount, nextDueAt as the deck list has them), its cards by
 * state, and the cards due now by state (before the daily limits /due applies; suspended and buried left out).
 */
export function deckOverview(decks: Decks, store: Store, deckId: string, now = new Date()) {
  const summary = decks.get(deckId);
  const nowText = now.toISOString();
  const { suspended: _s, buried: _b, ...due } = countsByState(store, deckId, nowText, true);
  return { ...summary, now: nowText, counts: countsByState(store, deckId, nowText), due };
}

/** Cards by state; suspended and buried (still buried now) apart from their FSRS state. `dueOnly`: those due at `nowText`. */
function countsByState(store: Store, deckId: string, nowText: string, dueOnly = false) {
  const counts = { new: 0, learning: 0, review: 0, relearning: 0, suspended: 0, buried: 0, total: 0 };
  const names = ['new', 'learning', 'review', 'relearning'] as const;
  const add = (s: number, q: string | null, n: number) => {
    if (q === 'suspended') counts.suspended += n;
    else if (q === 'buried') counts.buried += n;
    else counts[names[s] ?? 'new'] += n;
  };
  if (dueOnly) {
    for (const r of store.all<{ s: number; q: string | null; n: number }>(
      `SELECT ${STATE_SQL} AS s, (CASE WHEN queue = 'buried' AND coalesce(buried_until, '') <= ? THEN NULL ELSE queue END) AS q,
         count(*) AS n FROM deck_cards WHERE deck_id = ? AND due_at <= ? AND ${STUDIED} GROUP BY s, q`,
      [nowText, deckId, nowText, nowText],
    )) {
      counts.total += r.n;
      add(r.s, r.q, r.n);
    }
    return counts;
  }
  // Every card, from the index alone; then the buried cards whose burying has ended count in their state.
  for (const r of store.all<{ s: number; q: string | null; n: number }>(
    `SELECT ${STATE_SQL} AS s, queue AS q, count(*) AS n FROM deck_cards WHERE deck_id = ? GROUP BY q, s`,
    [deckId],
  )) {
    counts.total += r.n;
    add(r.s, r.q, r.n);
  }
  for (const r of store.all<{ s: number; n: number }>(
    `SELECT ${STATE_SQL} AS s, count(*) AS n FROM deck_cards
     WHERE deck_id = ? AND queue = 'buried' AND coalesce(buried_until, '') <= ? GROUP BY s`,
    [deckId, nowText],
  )) {
    counts.buried -= r.n;
    add(r.s, null, r.n);
  }
  return counts;
}

/**
 * One row per study day [a, b): `select` reads the day as days.a and days.b (correlated subqueries over an
 * index range each), so SQL sums every day without sorting the rows. `params` are ?1… before the days'.
 */
function perStudyDay<T>(store: Store, params: string[], days: Array<[string, string]>, select: string): T[] {
  if (!days.length) return [];
  const at = params.length + 1;
  const values = days.map((_, i) => `(${i}, ?${at + 2 * i}, ?${at + 2 * i + 1})`).join(', ');
  return store.all<T>(`WITH days(i, a, b) AS (VALUES ${values}) SELECT ${select} FROM days ORDER BY i`, [
    ...params,
    ...days.flat(),
  ]);
}

/** Reviews per study day (count, time) and true retention by interval bucket, summed in SQL. */
function reviewsByDay(store: Store, deckId: string, days: Date[], shift: (d: Date, n: number) => Date) {
  const perDay = new Map<string, { reviews: number; timeMs: number }>();
  const rows = perStudyDay<{ j: string }>(
    store,
    [deckId],
    days.map((d) => [d.toISOString(), shift(d, 1).toISOString()]),
    `(SELECT json_array(count(*), sum(coalesce(duration_ms, 0))) FROM review_logs
      WHERE deck_id = ?1 AND reviewed_at >= days.a AND reviewed_at < days.b) AS j`,
  );
  rows.forEach((r, i) => {
    const [n, ms] = JSON.parse(r.j) as Array<number | null>;
    if (n) perDay.set(localDate(days[i]), { reviews: n, timeMs: ms ?? 0 });
  });
  // The bucket's number: how many bucket bounds the interval has reached.
  const bucket = BUCKETS.filter((b) => Number.isFinite(b.below))
    .map((b) => `(elapsed_days >= ${b.below})`)
    .join(' + ');
  const retention = BUCKETS.map((b) => ({ interval: b.label, reviews: 0, passed: 0 }));
  for (const r of store.all<{ b: number; n: number; p: number }>(
    `SELECT ${bucket} AS b, count(*) AS n, sum(rating > 1) AS p FROM review_logs
     WHERE deck_id = ? AND reviewed_at >= ? AND state_before = 2 GROUP BY b`,
    [deckId, days.length ? days[0].toISOString() : ''],
  )) {
    retention[r.b].reviews += r.n;
    retention[r.b].passed += r.p;
  }
  return { perDay, retention };
}
