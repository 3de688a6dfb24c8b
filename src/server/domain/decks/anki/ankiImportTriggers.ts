import type { WriteTx } from '../../../ground/store/store';
import {
  DUE_DAYS_RECOUNT,
  REVIEW_HOURS_COLUMNS,
  REVIEW_HOURS_RECOUNT,
} from '../../../ground/store/deckDueDaysMigration';
import { runForIds } from './sqlBatches';

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

const INSERT_TRIGGERS = [
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

const STAMP = `INSERT INTO card_edits(noteid, stamp) SELECT noteid, (SELECT ifnull(max(rowid), 0) FROM snapshots) FROM notes
  WHERE noteid IN $IN ON CONFLICT(noteid) DO UPDATE SET stamp = excluded.stamp WHERE stamp <> excluded.stamp`;

/** A recount restricted to one deck: `WHERE deck_id = ?` before its GROUP BY. */
function forDeck(recount: string): string {
  const at = recount.lastIndexOf(' GROUP BY ');
  if (at < 0) throw new Error('counter recount without GROUP BY');
  return `${recount.slice(0, at)} WHERE deck_id = ?${recount.slice(at)}`;
}

/**
 * Runs `fn` (the import's inserts) with the insert triggers dropped, then
 * writes their effects for `deckId` and the cards `cardIds` and recreates them.
 */
export function withoutInsertTriggers<T>(
  tx: WriteTx,
  fn: () => T,
  effects: (out: T) => { deckId: string; cardIds: readonly string[] },
): T {
  const triggers = tx.all<{ name: string; sql: string }>(
    `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${INSERT_TRIGGERS.map(() => '?').join(',')})`,
    INSERT_TRIGGERS,
  );
  for (const t of triggers) tx.run(`DROP TRIGGER ${t.name}`);
  const out = fn();
  const { deckId, cardIds } = effects(out);
  runForIds(tx, STAMP, [...new Set(cardIds)]);
  tx.run('DELETE FROM deck_due_days WHERE deck_id = ?', [deckId]);
  tx.run(`INSERT INTO deck_due_days(deck_id, queue, state, day, n) ${forDeck(DUE_DAYS_RECOUNT)}`, [deckId]);
  tx.run('DELETE FROM review_hours WHERE deck_id = ?', [deckId]);
  tx.run(`INSERT INTO review_hours(${REVIEW_HOURS_COLUMNS.join(', ')}) ${forDeck(REVIEW_HOURS_RECOUNT)}`, [deckId]);
  for (const t of triggers) tx.run(t.sql);
  return out;
}
