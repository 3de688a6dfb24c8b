import type { Store } from '../../ground/store/store';
import type { Decks } from '../library/decks';
import { studyDay } from './deckOptions';
import { deckOptionsOf } from './deckPresets';
import { STATE_SQL, STUDIED } from './dueCounts';
import { countDueBeforeEach } from './dueDays';
import { localDate, reviewsByDay } from './reviewDays';
import { retrievabilityOf } from './deckRetrievability';

/**
 * A deck's statistics as Anki shows them: card counts by state, the due
 * forecast per study day, reviews per day with time spent, and true retention
 * (the pass rate of reviews of cards in review state, overall and by the
 * interval the card had), and on request the cards' recall probability now
 * (deckRetrievability.ts). Days are the deck's study days (dayStartHour),
 * named by their local date.
 */

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
  // Cards due before each day's end (dueDays.ts); a day holds the difference. The first day also holds what is overdue.
  const before = countDueBeforeEach(
    store,
    deckId,
    ['', 'buried'],
    [1, 2, 3],
    days.map((d) => shift(d, 1).toISOString()),
  );
  days.forEach((d, i) => forecast.set(localDate(d), before[i] - (i ? before[i - 1] : 0)));

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
  // Every card, from the deck's due-date counts (migration 17); then the buried cards whose burying has ended
  // count in their state, from the index of buried cards.
  for (const r of store.all<{ s: number; q: string; n: number }>(
    `SELECT state AS s, queue AS q, sum(n) AS n FROM deck_due_days WHERE deck_id = ? GROUP BY q, s`,
    [deckId],
  )) {
    counts.total += r.n;
    add(r.s, r.q || null, r.n);
  }
  for (const r of store.all<{ s: number; n: number }>(
    `SELECT ${STATE_SQL} AS s, count(*) AS n FROM deck_cards INDEXED BY deck_cards_buried
     WHERE deck_id = ? AND queue = 'buried' AND coalesce(buried_until, '') <= ? GROUP BY s`,
    [deckId, nowText],
  )) {
    counts.buried -= r.n;
    add(r.s, null, r.n);
  }
  return counts;
}
