import type { Store } from '../../ground/store/store';
import { REVIEW_HOURS_COLUMNS, REVIEW_HOURS_RECOUNT } from '../../ground/store/deckDueDaysMigration';

/**
 * The deck counters (deck_due_days, review_hours: migration 17) checked at
 * start against a recount from deck_cards and review_logs, and rebuilt in one
 * write when they differ. Triggers keep them in the same transaction as every
 * write, so they only drift when something bypassed or predates the triggers:
 * a database edited by hand, an imported library.db, a trigger's bug. /due and
 * /stats read them, so wrong counters would answer wrong counts for ever.
 * The check is two GROUP BYs over every card and review: at 100k of each it
 * costs a few hundred milliseconds of start (bench/decks.bench.ts measures it).
 */

/**
 * The migration's DUE_DAYS_RECOUNT (the same rows) counted first by the due moment the index of migration 15
 * holds, in its order, then by date: a third of the time of grouping 100k rows by date from the table.
 */
const DUE_DAYS_RECOUNT = `SELECT deck_id, coalesce(queue, ''), state, substr(coalesce(d, ''), 1, 10), sum(k)
  FROM (SELECT deck_id, queue, state, coalesce(due_at, created_at) AS d, count(*) AS k FROM deck_cards
        GROUP BY deck_id, queue, state, coalesce(due_at, created_at))
  GROUP BY 1, 2, 3, 4`;

const COUNTERS = [
  {
    table: 'deck_due_days',
    columns: ['deck_id', 'queue', 'state', 'day', 'n'],
    keys: 4,
    recount: DUE_DAYS_RECOUNT,
    what: 'due counts',
  },
  {
    table: 'review_hours',
    columns: REVIEW_HOURS_COLUMNS,
    keys: 2,
    recount: REVIEW_HOURS_RECOUNT,
    what: 'review statistics',
  },
];

export interface CounterDrift {
  table: string;
  /** Rows of the table that differ from the recount (wrong, missing or extra). */
  rows: number;
  decks: number;
}

/** The counter tables' rows that differ from a recount, by table (none: they agree). */
export function counterDrift(store: Pick<Store, 'all'>): CounterDrift[] {
  return COUNTERS.flatMap(({ table, columns, keys, recount }) => {
    const stored = `SELECT ${columns.join(', ')} FROM ${table}`;
    // A row wrong in value is in both differences: counted once, by its key columns.
    const key = columns.slice(0, keys).join(', ');
    const diff = store.all<{ k: string; deck_id: string }>(
      `WITH c(${columns.join(', ')}) AS (${recount})
       SELECT DISTINCT json_array(${key}) AS k, deck_id FROM (SELECT * FROM c EXCEPT ${stored}
         UNION ALL SELECT * FROM (${stored} EXCEPT SELECT * FROM c))`,
    );
    return diff.length ? [{ table, rows: diff.length, decks: new Set(diff.map((r) => r.deck_id)).size }] : [];
  });
}

/** Rebuilds the tables of `drift` from a recount, in one write. */
export async function rebuildCounters(store: Store, drift: readonly CounterDrift[]): Promise<void> {
  const tables = new Set(drift.map((d) => d.table));
  await store.write((tx) => {
    for (const { table, columns, recount } of COUNTERS) {
      if (!tables.has(table)) continue;
      tx.run(`DELETE FROM ${table}`);
      tx.run(`INSERT INTO ${table}(${columns.join(', ')}) ${recount}`);
    }
  });
}

/**
 * The start-up check: compares, rebuilds what differs, and answers the line to report (undefined when
 * the counters were right). A write that fails (a full disk) is reported too: the counters stay wrong.
 */
export async function repairDeckCounters(store: Store): Promise<string | undefined> {
  let drift: CounterDrift[];
  try {
    drift = counterDrift(store);
  } catch (e) {
    // The library is served anyway: a check that cannot run is said, not a start refused.
    return `the deck counters could not be checked against the cards and review log: ${(e as Error).message}`;
  }
  if (!drift.length) return undefined;
  const found = drift
    .map((d) => {
      const what = COUNTERS.find((c) => c.table === d.table)!.what;
      return `${d.table} (${what}: ${d.rows} row(s) of ${d.decks} deck(s))`;
    })
    .join(' and ');
  try {
    await rebuildCounters(store, drift);
  } catch (e) {
    return `the deck counters ${found} differ from the cards and review log and could not be rebuilt: ${(e as Error).message}`;
  }
  return `the deck counters ${found} differed from the cards and review log and were rebuilt from them`;
}
