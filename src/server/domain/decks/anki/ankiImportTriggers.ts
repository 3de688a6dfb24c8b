import type { WriteTx } from '../../../ground/store/store';
import {
  DUE_DAYS_RECOUNT,
  REVIEW_HOURS_COLUMNS,
  REVIEW_HOURS_RECOUNT,
} from '../../../ground/store/deckDueDaysMigration';
import type { WriteSteps } from '../../../ground/store/writeSteps';
import { insertRowsSteps } from './sqlBatches';

/**
 * An import's inserts without the per-row triggers. SQLite runs an AFTER
 * INSERT trigger's statements once per row: for a 40,000-card import that is
 * a state UPDATE and a counter upsert per review card, an hour upsert per
 * review and a card_edits stamp per card row, text and hashtag (most of the
 * import's SQL time). Inside the import's one transaction these triggers are
 * dropped, the rows go in, and what the triggers would have written is
 * written once: the deck's counters recounted from its rows (deck_due_days,
 * review_hours, the same SELECTs the start-up check compares with), and one
 * card_edits stamp per card. Each trigger is then created again from its own
 * text in sqlite_master. DDL is transactional and journaled like any write,
 * so a failed import rolls back with its triggers in place, and a replay
 * runs the same statements to the same rows. Updates and deletes keep their
 * triggers. The caller gives each new review card its state (the column
 * deck_cards_state_ins would set).
 */

export const INSERT_TRIGGERS = [
  'deck_cards_state_ins',
  'deck_due_days_ins',
  'review_hours_ins',
  'card_edits_notes_ins',
  'card_edits_texts_ins',
  'card_edits_tags_ins',
  'card_edits_parts_ins',
];

/** The state deck_cards_state_ins gives a card whose fsrs is this object's JSON. */
export const scheduleState = (schedule: { state?: unknown }): number =>
  typeof schedule.state === 'number' ? schedule.state : 0;

/** Rows a recount statement counts: a 40,000-card deck's recount in one statement held the loop 0.3-0.4 s. */
const RECOUNT_ROWS = 2000;

/** Each counter table: its columns, the key its rows are summed under, its recount, and the rows it counts by key. */
const COUNTERS = [
  {
    table: 'deck_due_days',
    cols: ['deck_id', 'queue', 'state', 'day', 'n'],
    conflict: ['deck_id', 'queue', 'state', 'day'],
    sql: DUE_DAYS_RECOUNT,
    rows: { table: 'deck_cards', key: 'card_note_id' },
  },
  {
    table: 'review_hours',
    cols: REVIEW_HOURS_COLUMNS,
    conflict: ['deck_id', 'hour'],
    sql: REVIEW_HOURS_RECOUNT,
    rows: { table: 'review_logs', key: 'id' },
  },
];

/**
 * A deck's counters recounted from its rows in key ranges of RECOUNT_ROWS,
 * each range's counts added to the earlier ones' (a statement a step): the
 * recount restricted to the deck and the key in (lo, hi] (`+deck_id`: the
 * key's own index walks the range) before its GROUP BY, as an upsert that sums.
 */
function* recount(tx: WriteTx, deckId: string, c: (typeof COUNTERS)[number]): WriteSteps<void> {
  tx.run(`DELETE FROM ${c.table} WHERE deck_id = ?`, [deckId]);
  const group = c.sql.lastIndexOf(' GROUP BY ');
  if (group < 0) throw new Error('counter recount without GROUP BY');
  const { key } = c.rows;
  const sums = c.cols.filter((col) => !c.conflict.includes(col)).map((col) => `${col} = ${col} + excluded.${col}`);
  const statement = `INSERT INTO ${c.table}(${c.cols.join(', ')}) ${c.sql.slice(0, group)} WHERE +deck_id = ?1 AND ${key} > ?2 AND ${key} <= ?3${c.sql.slice(group)} ON CONFLICT(${c.conflict.join(', ')}) DO UPDATE SET ${sums.join(', ')}`;
  // Each range's upper key is found as it comes (reading all 40,000-60,000 keys at once held the loop ~0.1 s).
  const bound = `SELECT ${key} AS k FROM ${c.rows.table} WHERE +deck_id = ?1 AND ${key} > ?2 ORDER BY ${key} LIMIT 1 OFFSET ${RECOUNT_ROWS - 1}`;
  const last = tx.get<{ k: string | null }>(`SELECT max(${key}) AS k FROM ${c.rows.table} WHERE deck_id = ?`, [
    deckId,
  ])?.k;
  yield;
  for (let lo = ''; last != null;) {
    const next = tx.get<{ k: string }>(bound, [deckId, lo])?.k;
    const hi = next ?? last;
    tx.run(statement, [deckId, lo, hi]);
    yield;
    if (next === undefined || hi === last) break;
    lo = hi;
  }
}

/**
 * Runs `fn` (the import's inserts) with the insert triggers dropped, then
 * writes their effects for `deckId` and the cards `cardIds` and recreates them;
 * yields between statements (writeSteps.ts). Other writes wait for a sliced
 * write, so none runs while the triggers are gone.
 */
export function* withoutInsertTriggers<T>(
  tx: WriteTx,
  fn: () => WriteSteps<T>,
  effects: (out: T) => { deckId: string; cardIds: readonly string[] },
): WriteSteps<T> {
  const triggers = tx.all<{ name: string; sql: string }>(
    `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${INSERT_TRIGGERS.map(() => '?').join(',')})`,
    INSERT_TRIGGERS,
  );
  // DDL re-reads the schema: a statement a step.
  for (const t of triggers) {
    tx.run(`DROP TRIGGER ${t.name}`);
    yield;
  }
  const out = yield* fn();
  const { deckId, cardIds } = effects(out);
  // One stamp for all (the newest snapshot's rowid, as the triggers take it), bound as a shared value of multi-row
  // inserts in key order: the cards are the import's own, all in notes (a per-id SELECT from notes was ~2x slower).
  const stamp = tx.get<{ s: number }>('SELECT ifnull(max(rowid), 0) AS s FROM snapshots')?.s ?? 0;
  yield* insertRowsSteps(
    tx,
    'INSERT OR REPLACE INTO card_edits(noteid, stamp)',
    [...new Set(cardIds)].sort().map((id) => [id, stamp]),
  );
  for (const counter of COUNTERS) yield* recount(tx, deckId, counter);
  for (const t of triggers) {
    tx.run(t.sql);
    yield;
  }
  return out;
}
