/**
 * Migration 17: deck_due_days, a deck's cards counted by queue ('' for the
 * studied queue), FSRS state and the UTC date they fall due on, kept by
 * triggers for every writer (grades, adds, imports, card actions, deletes).
 * The due counts and statistics sum a deck's few date rows and read index
 * entries only within one date (domain/decks/dueDays.ts), where counting the
 * index range itself read every new card of a 100k-card deck on each /due.
 * Each statement is idempotent and the table is refilled from deck_cards, so
 * the migration replays from the journal, or runs again, to the same rows.
 */

/** The row a deck_cards row (NEW or OLD) counts in: its key columns as SQL values. */
const key = (r: 'NEW' | 'OLD') =>
  `${r}.deck_id, coalesce(${r}.queue, ''), ${r}.state, substr(coalesce(${r}.due_at, ${r}.created_at, ''), 1, 10)`;
const add = (r: 'NEW' | 'OLD') =>
  `INSERT INTO deck_due_days(deck_id, queue, state, day, n) VALUES (${key(r)}, 1) ON CONFLICT(deck_id, queue, state, day) DO UPDATE SET n = n + 1;`;
const drop = (r: 'NEW' | 'OLD') =>
  `UPDATE deck_due_days SET n = n - 1 WHERE (deck_id, queue, state, day) = (${key(r)}); DELETE FROM deck_due_days WHERE (deck_id, queue, state, day) = (${key(r)}) AND n <= 0;`;
const changed = `(${key('NEW')}) IS NOT (${key('OLD')})`;

/** The interval bucket of a review (deckStats.ts's true retention buckets: 7, 21 and 90 days). */
const bucket = (r: 'NEW' | 'OLD') =>
  `((${r}.elapsed_days >= 7) + (${r}.elapsed_days >= 21) + (${r}.elapsed_days >= 90))`;
/** A review's part in each column of review_hours after n and ms: review-state reviews, then passed ones, by bucket. */
const parts = (r: 'NEW' | 'OLD') =>
  [0, 1, 2, 3, 0, 1, 2, 3].map(
    (b, i) => `coalesce(${r}.state_before = 2 AND ${bucket(r)} = ${b}${i >= 4 ? ` AND ${r}.rating > 1` : ''}, 0)`,
  );
const COLS = ['r0', 'r1', 'r2', 'r3', 'p0', 'p1', 'p2', 'p3'];
const hourKey = (r: 'NEW' | 'OLD') => `${r}.deck_id, substr(${r}.reviewed_at, 1, 13)`;
const addReview = (r: 'NEW' | 'OLD') =>
  `INSERT INTO review_hours(deck_id, hour, n, ms, ${COLS.join(', ')}) VALUES (${hourKey(r)}, 1, coalesce(${r}.duration_ms, 0), ${parts(r).join(', ')}) ON CONFLICT(deck_id, hour) DO UPDATE SET n = n + 1, ms = ms + excluded.ms, ${COLS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')};`;
const dropReview = (r: 'NEW' | 'OLD') =>
  `UPDATE review_hours SET n = n - 1, ms = ms - coalesce(${r}.duration_ms, 0), ${COLS.map((c, i) => `${c} = ${c} - ${parts(r)[i]}`).join(', ')} WHERE (deck_id, hour) = (${hourKey(r)}); DELETE FROM review_hours WHERE (deck_id, hour) = (${hourKey(r)}) AND n <= 0;`;

/**
 * Both counters as counted afresh from deck_cards and review_logs, in their tables' column order: what the
 * migration fills them with, and what the start-up check (domain/decks/counterRepair.ts) compares them against.
 */
export const DUE_DAYS_RECOUNT = `SELECT deck_id, coalesce(queue, ''), state, substr(coalesce(due_at, created_at, ''), 1, 10), count(*) FROM deck_cards GROUP BY 1, 2, 3, 4`;
export const REVIEW_HOURS_RECOUNT = `SELECT deck_id, substr(reviewed_at, 1, 13), count(*), sum(coalesce(duration_ms, 0)), ${parts(
  'NEW',
)
  .map((p) => `sum(${p.replace(/NEW\./g, '')})`)
  .join(', ')} FROM review_logs GROUP BY 1, 2`;
export const REVIEW_HOURS_COLUMNS = ['deck_id', 'hour', 'n', 'ms', ...COLS];

export const deckDueDaysMigration = {
  version: 17,
  sql: `
CREATE TABLE IF NOT EXISTS deck_due_days (deck_id TEXT NOT NULL, queue TEXT NOT NULL, state INTEGER NOT NULL, day TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (deck_id, queue, state, day));
DELETE FROM deck_due_days;
INSERT INTO deck_due_days(deck_id, queue, state, day, n) ${DUE_DAYS_RECOUNT};
CREATE TRIGGER IF NOT EXISTS deck_due_days_ins AFTER INSERT ON deck_cards BEGIN ${add('NEW')} END;
CREATE TRIGGER IF NOT EXISTS deck_due_days_del AFTER DELETE ON deck_cards BEGIN ${drop('OLD')} END;
CREATE TRIGGER IF NOT EXISTS deck_due_days_upd AFTER UPDATE OF deck_id, queue, state, due_at, created_at ON deck_cards WHEN ${changed} BEGIN ${drop('OLD')} ${add('NEW')} END;
-- The review log by deck and UTC hour: reviews, time, and review-state reviews and passes by interval bucket.
CREATE TABLE IF NOT EXISTS review_hours (deck_id TEXT NOT NULL, hour TEXT NOT NULL, n INTEGER NOT NULL, ms INTEGER NOT NULL, ${COLS.map((c) => `${c} INTEGER NOT NULL`).join(', ')}, PRIMARY KEY (deck_id, hour));
DELETE FROM review_hours;
INSERT INTO review_hours(deck_id, hour, n, ms, ${COLS.join(', ')}) ${REVIEW_HOURS_RECOUNT};
CREATE TRIGGER IF NOT EXISTS review_hours_ins AFTER INSERT ON review_logs BEGIN ${addReview('NEW')} END;
CREATE TRIGGER IF NOT EXISTS review_hours_del AFTER DELETE ON review_logs BEGIN ${dropReview('OLD')} END;
CREATE TRIGGER IF NOT EXISTS review_hours_upd AFTER UPDATE OF deck_id, reviewed_at, state_before, rating, elapsed_days, duration_ms ON review_logs BEGIN ${dropReview('OLD')} ${addReview('NEW')} END;
-- Buried cards by the end of their burying, with what the due counts read of them, so they are counted from the index.
CREATE INDEX IF NOT EXISTS deck_cards_buried ON deck_cards(deck_id, coalesce(buried_until, ''), state, coalesce(due_at, created_at), created_at) WHERE queue = 'buried';
`,
};
