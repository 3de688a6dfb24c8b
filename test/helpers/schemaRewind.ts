/**
 * What migrations 12-14 added (deck options, Anki's cards, the state column),
 * taken away again: a test that sets a current store's schema_version back to
 * an older one must also take these away, since those migrations run again.
 * Migration 16's indexes go first: a column an index names cannot be dropped.
 */
export const UNDO_MIGRATIONS_12_TO_14: readonly string[] = [
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
