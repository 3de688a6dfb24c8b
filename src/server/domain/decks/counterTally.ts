import type { SqlParam } from '../../ground/store/journal';
import { REVIEW_HOURS_COLUMNS } from '../../ground/store/deckDueDaysMigration';

/**
 * What the deck counters' insert triggers (ground/store/deckDueDaysMigration.ts,
 * deck_due_days_ins and review_hours_ins) would add for rows a bulk write
 * inserts with those triggers dropped, summed in memory as the rows are made:
 * each counter row once, added to what is there, instead of a recount that
 * reads back every row just written (0.3-0.5 s of a 40,000-card Anki import).
 * The keys and parts mirror the triggers' SQL expression by expression;
 * test/unit/counterTally.test.ts checks them equal to the triggers' rows.
 */

export interface CountedCard {
  deck_id: string;
  queue: string | null;
  state: number;
  due_at: string | null;
  created_at: string;
}

export interface CountedReview {
  deck_id: string;
  reviewed_at: string;
  duration_ms: number | null;
  state_before: number;
  elapsed_days: number;
  rating: number;
}

/** The interval bucket of a review: the triggers' `(e >= 7) + (e >= 21) + (e >= 90)`. */
const bucketOf = (elapsedDays: number) =>
  Number(elapsedDays >= 7) + Number(elapsedDays >= 21) + Number(elapsedDays >= 90);

export class CounterTally {
  /** deck_due_days rows by key: [deck_id, queue, state, day, n]. */
  private readonly days = new Map<string, [string, string, number, string, number]>();
  /** review_hours rows by key: deck_id, hour, then n, ms, r0..r3, p0..p3 (REVIEW_HOURS_COLUMNS' order). */
  private readonly hours = new Map<string, { deckId: string; hour: string; sums: number[] }>();
  private counted = { cards: 0, reviews: 0 };

  /** Cards and reviews tallied so far. */
  get cards(): number {
    return this.counted.cards;
  }

  get reviews(): number {
    return this.counted.reviews;
  }

  /** An inserted deck_cards row: `coalesce(queue, '')`, state, `substr(coalesce(due_at, created_at, ''), 1, 10)`. */
  card(c: CountedCard): void {
    const queue = c.queue ?? '';
    const day = (c.due_at ?? c.created_at ?? '').slice(0, 10);
    const key = `${c.deck_id}\u0000${queue}\u0000${c.state}\u0000${day}`;
    const row = this.days.get(key);
    if (row) row[4]++;
    else this.days.set(key, [c.deck_id, queue, c.state, day, 1]);
    this.counted.cards++;
  }

  /** An inserted review_logs row: by `substr(reviewed_at, 1, 13)`; n, ms, then review-state reviews and passes by bucket. */
  review(r: CountedReview): void {
    const hour = r.reviewed_at.slice(0, 13);
    const key = `${r.deck_id}\u0000${hour}`;
    let row = this.hours.get(key);
    if (!row) this.hours.set(key, (row = { deckId: r.deck_id, hour, sums: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }));
    row.sums[0]++;
    row.sums[1] += r.duration_ms ?? 0;
    if (r.state_before === 2) {
      const b = bucketOf(r.elapsed_days);
      row.sums[2 + b]++;
      if (r.rating > 1) row.sums[6 + b]++;
    }
    this.counted.reviews++;
  }

  /** The counter rows to add, each with the upsert that adds it to a row already there. */
  upserts(): { sql: string; rows: SqlParam[][] }[] {
    return [
      { sql: upsert('deck_due_days', ['deck_id', 'queue', 'state', 'day', 'n'], 4), rows: [...this.days.values()] },
      {
        sql: upsert('review_hours', REVIEW_HOURS_COLUMNS, 2),
        rows: [...this.hours.values()].map((h) => [h.deckId, h.hour, ...h.sums]),
      },
    ];
  }
}

/** `INSERT INTO table(cols) VALUES` + `$ROWS` + an upsert adding the columns after the first `keys`. */
function upsert(table: string, cols: readonly string[], keys: number): string {
  const sums = cols.slice(keys).map((c) => `${c} = ${c} + excluded.${c}`);
  return `INSERT INTO ${table}(${cols.join(', ')}) VALUES $ROWS ON CONFLICT(${cols.slice(0, keys).join(', ')}) DO UPDATE SET ${sums.join(', ')}`;
}
