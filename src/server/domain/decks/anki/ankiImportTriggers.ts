import type { WriteTx } from '../../../ground/store/store';
import type { WriteSteps } from '../../../ground/store/writeSteps';
import { CounterTally } from '../counterTally';
import { insertRowsSteps } from './sqlBatches';

/**
 * An import's inserts without the per-row triggers. SQLite runs an AFTER
 * INSERT trigger's statements once per row: for a 40,000-card import that is
 * a state UPDATE and a counter upsert per review card, an hour upsert per
 * review and a card_edits stamp per card row, text and hashtag (most of the
 * import's SQL time). Inside the import's one transaction these triggers are
 * dropped, the rows go in, and what the triggers would have written is
 * written once: the deck counters' rows for the inserted cards and reviews,
 * summed as they were made (domain/decks/counterTally.ts) and added to the
 * counters (update and delete triggers stay, so rows the import updates keep
 * theirs), and one card_edits stamp per card. Each trigger is then created
 * again from its own text in sqlite_master. DDL is transactional and
 * journaled like any write, so a failed import rolls back with its triggers
 * in place, and a replay runs the same statements to the same rows. The
 * caller gives each new review card its state (the column
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

/** Counter rows a statement adds. */
const COUNTER_ROWS = 100;

/**
 * Runs `fn` (the import's inserts) with the insert triggers dropped, then
 * writes their effects and recreates them: the counter rows `fn` tallied for
 * every deck card and review it inserted (it must count each one), and a
 * stamp for each of the cards `cardIdsOf` names. Yields between statements
 * (writeSteps.ts). Other writes wait for a sliced write, so none runs while
 * the triggers are gone.
 */
export function* withoutInsertTriggers<T>(
  tx: WriteTx,
  fn: (tally: CounterTally) => WriteSteps<T>,
  cardIdsOf: (out: T) => readonly string[],
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
  const tally = new CounterTally();
  const out = yield* fn(tally);
  const cardIds = cardIdsOf(out);
  // One stamp for all (the newest snapshot's rowid, as the triggers take it), bound as a shared value of multi-row
  // inserts in key order: the cards are the import's own, all in notes (a per-id SELECT from notes was ~2x slower).
  const stamp = tx.get<{ s: number }>('SELECT ifnull(max(rowid), 0) AS s FROM snapshots')?.s ?? 0;
  yield* insertRowsSteps(
    tx,
    'INSERT OR REPLACE INTO card_edits(noteid, stamp)',
    [...new Set(cardIds)].sort().map((id) => [id, stamp]),
  );
  for (const { sql, rows } of tally.upserts())
    for (let i = 0; i < rows.length; i += COUNTER_ROWS) {
      const chunk = rows.slice(i, i + COUNTER_ROWS);
      tx.run(sql.replace('$ROWS', chunk.map((r) => `(${r.map(() => '?').join(', ')})`).join(', ')), chunk.flat());
      yield;
    }
  for (const t of triggers) {
    tx.run(t.sql);
    yield;
  }
  return out;
}
