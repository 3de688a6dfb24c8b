import type { Store } from '../../ground/store/store';
import type { Decks } from '../library/decks';
import { studyDay } from './deckOptions';
import { deckOptionsOf } from './deckPresets';
import { STATE_SQL, STUDIED } from './deckDue';
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
  const dayOf = (iso: string) => localDate(studyDay(new Date(iso), options.dayStartHour).start);
  const shift = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + n, d.getHours());

  const counts = countsByState(store, deckId, nowText);

  // Forecast: cards in the studied queue by the study day they fall due; overdue ones count today.
  const forecastEnd = shift(today.start, opts.forecastDays).toISOString();
  const forecast = new Map<string, number>();
  for (let i = 0; i < opts.forecastDays; i++) forecast.set(localDate(shift(today.start, i)), 0);
  const todayKey = localDate(today.start);
  for (const r of store.all<{ d: string }>(
    `SELECT coalesce(due_at, created_at) AS d FROM deck_cards WHERE deck_id = ? AND coalesce(due_at, created_at) < ?
       AND coalesce(queue, '') <> 'suspended' AND ${STATE_SQL} <> 0`,
    [deckId, forecastEnd],
  )) {
    const key = r.d < today.start.toISOString() ? todayKey : dayOf(r.d);
    forecast.set(key, (forecast.get(key) ?? 0) + 1);
  }

  // Reviews per day and true retention over the history window.
  const since = shift(today.start, -(opts.historyDays - 1)).toISOString();
  const perDay = new Map<string, { reviews: number; timeMs: number }>();
  const retention = BUCKETS.map((b) => ({ interval: b.label, reviews: 0, passed: 0 }));
  for (const r of store.all<{ at: string; ms: number | null; s: number; g: number; e: number }>(
    `SELECT reviewed_at AS at, duration_ms AS ms, state_before AS s, rating AS g, elapsed_days AS e
       FROM review_logs WHERE deck_id = ? AND reviewed_at >= ? ORDER BY reviewed_at`,
    [deckId, since],
  )) {
    const key = dayOf(r.at);
    const day = perDay.get(key) ?? { reviews: 0, timeMs: 0 };
    day.reviews++;
    day.timeMs += r.ms ?? 0;
    perDay.set(key, day);
    if (r.s !== 2) continue;
    const bucket = retention[BUCKETS.findIndex((b) => r.e < b.below)];
    bucket.reviews++;
    if (r.g > 1) bucket.passed++;
  }
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
  for (const r of store.all<{ s: number; q: string | null; n: number }>(
    `SELECT ${STATE_SQL} AS s, (CASE WHEN queue = 'buried' AND coalesce(buried_until, '') <= ? THEN NULL ELSE queue END) AS q,
       count(*) AS n FROM deck_cards WHERE deck_id = ? ${dueOnly ? `AND due_at <= ? AND ${STUDIED}` : ''} GROUP BY s, q`,
    dueOnly ? [nowText, deckId, nowText, nowText] : [nowText, deckId],
  )) {
    counts.total += r.n;
    if (r.q === 'suspended') counts.suspended += r.n;
    else if (r.q === 'buried') counts.buried += r.n;
    else counts[names[r.s] ?? 'new'] += r.n;
  }
  return counts;
}
