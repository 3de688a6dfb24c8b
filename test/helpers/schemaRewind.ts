/**
 * What migrations 12-14 added (deck options, Anki's cards, the state column),
 * taken away again: a test that sets a current store's schema_version back to
 * an older one must also take these away, since those migrations run again.
 * Migration 16's indexes and migration 17's counters (triggers, index, tables) go first: a column an index or a
 * trigger names cannot be dropped. Migration 17 runs again after them and fills its counters anew.
 */
export const UNDO_MIGRATIONS_12_TO_14: readonly string[] = [
  ...['deck_due_days', 'review_hours'].flatMap((t) =>
    ['ins', 'del', 'upd'].map((op) => `DROP TRIGGER IF EXISTS ${t}_${op}`),
  ),
  'DROP INDEX IF EXISTS deck_cards_buried',
  'DROP TABLE IF EXISTS deck_due_days',
  'DROP TABLE IF EXISTS review_hours',
  'DROP INDEX IF EXISTS deck_cards_queue_state_due',
  'DROP INDEX IF EXISTS review_logs_deck_stats',
  'DROP TRIGGER deck_cards_state_ins',
  'DROP TRIGGER deck_cards_state_upd',
  'DROP INDEX deck_cards_state_due',
  'DROP INDEX deck_cards_due',
  ...['state', 'queue', 'buried_until', 'flag', 'leech'].map((c) => `ALTER TABLE deck_cards DROP COLUMN ${c}`),
  ...['mid', 'fields', 'text_hash'].map((c) => `ALTER TABLE anki_notes DROP COLUMN ${c}`),
  ...['deck_presets', 'deck_settings', 'anki_cards', 'anki_models'].map((t) => `DROP TABLE ${t}`),
];
