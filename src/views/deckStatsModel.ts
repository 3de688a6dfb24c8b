import type { DeckStats } from '../client/deckStatsApi';
import type { RetentionBucket, StateCounts, StatsModel } from '../webviews/deckStats/protocol';

/**
 * The Statistics panel's model from GET /decks/{id}/stats answers: one deck's
 * as it is, or every deck's added up ("All decks": counts, forecast and
 * reviews per day summed by date, retention summed by interval bucket and its
 * rate recomputed from the sums, not averaged).
 */

type Retrievability = NonNullable<StatsModel['retrievability']>;
/** The answer's retrievability distribution: asked for; a bridge of an older version (another window's) has none. */
const retrievabilityOf = (a: DeckStats): Retrievability | undefined => a.retrievability;

const rate = (passed: number, reviews: number) => (reviews ? passed / reviews : null);

function sumByDate<T extends { date: string }>(lists: T[][], add: (into: T, from: T) => void): T[] {
  const byDate = new Map<string, T>();
  for (const list of lists)
    for (const item of list) {
      const have = byDate.get(item.date);
      if (have) add(have, item);
      else byDate.set(item.date, { ...item });
    }
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

function sumCounts(answers: DeckStats[]): StateCounts {
  const c: StateCounts = { new: 0, learning: 0, review: 0, relearning: 0, suspended: 0, buried: 0, total: 0 };
  for (const a of answers) for (const k of Object.keys(c) as (keyof StateCounts)[]) c[k] += a.counts[k];
  return c;
}

function sumRetention(answers: DeckStats[]): StatsModel['trueRetention'] {
  const buckets = new Map<string, RetentionBucket>();
  for (const a of answers)
    for (const b of a.trueRetention.byInterval) {
      const have = buckets.get(b.interval) ?? { interval: b.interval, reviews: 0, passed: 0, rate: null };
      have.reviews += b.reviews;
      have.passed += b.passed;
      buckets.set(b.interval, have);
    }
  const byInterval = [...buckets.values()].map((b) => ({ ...b, rate: rate(b.passed, b.reviews) }));
  const reviews = answers.reduce((n, a) => n + a.trueRetention.reviews, 0);
  const passed = answers.reduce((n, a) => n + a.trueRetention.passed, 0);
  return { reviews, passed, rate: rate(passed, reviews), byInterval };
}

function sumRetrievability(answers: DeckStats[]): StatsModel['retrievability'] {
  const parts = answers.map(retrievabilityOf);
  if (!parts.length || parts.some((p) => !p)) return null;
  const buckets = new Map<string, number>();
  let cards = 0;
  let weighted = 0;
  for (const p of parts as Retrievability[]) {
    cards += p.cards;
    weighted += (p.average ?? 0) * p.cards;
    for (const b of p.buckets) buckets.set(b.range, (buckets.get(b.range) ?? 0) + b.cards);
  }
  return {
    cards,
    average: cards ? weighted / cards : null,
    buckets: [...buckets].map(([range, n]) => ({ range, cards: n })),
  };
}

/** The model of one deck's answer, or of several added up (`title` names what it shows). */
export function statsModel(title: string, answers: DeckStats[], historyDays: number): StatsModel {
  return {
    title,
    deckCount: answers.length,
    now: answers[0]?.now ?? new Date().toISOString(),
    counts: sumCounts(answers),
    forecast: sumByDate(
      answers.map((a) => a.forecast),
      (into, from) => (into.due += from.due),
    ),
    reviewsPerDay: sumByDate(
      answers.map((a) => a.reviewsPerDay),
      (into, from) => {
        into.reviews += from.reviews;
        into.timeMs += from.timeMs;
      },
    ),
    historyDays,
    trueRetention: sumRetention(answers),
    retrievability: sumRetrievability(answers),
  };
}
