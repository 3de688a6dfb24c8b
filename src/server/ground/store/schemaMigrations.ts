/**
 * The steps later issues added to the first schema (schema.ts), from 5 on
 * (there is no 4). Same rules: each runs once, in order, journaled; never
 * edit a shipped step, add a new one.
 */
import { deckDueDaysMigration } from './deckDueDaysMigration';
/**
 * Migration 11's trigger step: stamps a card (NEW or OLD row's noteid) with the newest snapshot's rowid.
 * An upsert that leaves a row already at that stamp alone: a new card's texts and tags find it stamped
 * by its own insert, so a bulk import writes one row per card, not one per row it inserts.
 */
const stamp = (row: 'NEW' | 'OLD') =>
  `INSERT INTO card_edits(noteid, stamp) VALUES (${row}.noteid, (SELECT ifnull(max(rowid), 0) FROM snapshots)) ON CONFLICT(noteid) DO UPDATE SET stamp = excluded.stamp WHERE stamp <> excluded.stamp;`;

export const laterMigrations: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 5,
    sql: `
-- One row per grade (test/api/deckReviews.test.ts): what ts-fsrs's ReviewLog holds, so FSRS
-- parameters can be fitted to this person later. state_before, due_before,
-- stability, difficulty and learning_steps are the card's values before the
-- grade (as ts-fsrs logs them); due_after is where the grade moved it.
CREATE TABLE review_logs (
  id TEXT PRIMARY KEY,
  deck_id TEXT NOT NULL,
  card_note_id TEXT NOT NULL,
  rating INTEGER NOT NULL,               -- ts-fsrs Rating: 1 again, 2 hard, 3 good, 4 easy
  state_before INTEGER NOT NULL,         -- ts-fsrs State: 0 new, 1 learning, 2 review, 3 relearning
  due_before TEXT NOT NULL,
  stability REAL NOT NULL,
  difficulty REAL NOT NULL,
  elapsed_days REAL NOT NULL,
  last_elapsed_days REAL NOT NULL,
  scheduled_days REAL NOT NULL,
  learning_steps INTEGER NOT NULL,
  reviewed_at TEXT NOT NULL,
  duration_ms INTEGER,
  due_after TEXT NOT NULL,
  actor TEXT NOT NULL
);
CREATE INDEX review_logs_deck ON review_logs(deck_id, reviewed_at);
CREATE INDEX review_logs_card ON review_logs(card_note_id, reviewed_at);
`,
  },
  {
    version: 6,
    sql: `
-- Identity is the token (test/api/tokenIdentity.test.ts): every agent has its own named token with
-- a scope, and only the HMAC of a token (keyed by <dataDir>/secret) is stored.
-- Tokens paired before have only a bare SHA-256: kept in legacy_sha256 until
-- their first use rekeys them. A revoked row keeps its name for the logs.
CREATE TABLE agent_tokens (
  token_id TEXT PRIMARY KEY,
  token_hmac TEXT UNIQUE,                -- hex HMAC-SHA-256, NULL once revoked
  legacy_sha256 TEXT UNIQUE,             -- paired before per-agent tokens, until first use
  name TEXT NOT NULL,
  scope TEXT NOT NULL,                   -- read | write
  created_at TEXT NOT NULL,
  last_used_at TEXT,                     -- coarse: written at most once a minute per token
  revoked_at TEXT
);
INSERT INTO agent_tokens(token_id, legacy_sha256, name, scope, created_at)
  SELECT 'tok_' || substr(token_hash, 1, 16), token_hash, device_name, 'write', created_at FROM tokens;
DROP TABLE tokens;
-- Which agent token wrote (NULL: the person, or before per-agent tokens).
ALTER TABLE operations ADD COLUMN token_id TEXT;
ALTER TABLE review_logs ADD COLUMN token_id TEXT;
-- What an install or pairing code grants: JSON {name, scope}.
ALTER TABLE access_codes ADD COLUMN grant_json TEXT;
`,
  },
  {
    version: 7,
    sql: `
-- The person approves what cannot be undone (test/api/approvals.test.ts): an agent's covered
-- call is stored here, not run, until the owner allows or denies it. The
-- request is kept whole so a pending approval survives a restart; an allowed
-- one is marked before it runs and its answer saved after, so it runs at
-- most once and its result stays readable.
CREATE TABLE approvals (
  approval_id TEXT PRIMARY KEY,
  token_id TEXT NOT NULL,                -- the agent token that asked
  agent_name TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,                    -- the route's declared path, e.g. /notes/delete
  request_json TEXT NOT NULL,            -- {params, query, body} as sent
  summary_json TEXT NOT NULL,            -- {text, dryRun?}: what the call would do
  state TEXT NOT NULL,                   -- pending | allowed | denied | expired
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_at TEXT,
  decided_by TEXT,                       -- owner | mcp-elicitation
  result_json TEXT                       -- {status, body} once the allowed call answered
);
CREATE INDEX approvals_state ON approvals(state, expires_at);
CREATE INDEX operations_token ON operations(token_id, op_seq);
`,
  },
  {
    version: 8,
    sql: `
-- Anki packages (test/api/ankiImport.test.ts): the note guid each imported Anki note became a
-- card under, so importing the same package again updates instead of
-- duplicating, and an export gives the card its original guid back.
CREATE TABLE anki_notes (
  guid TEXT PRIMARY KEY,
  noteid TEXT NOT NULL,
  topicid TEXT NOT NULL,
  deck_id TEXT NOT NULL,
  imported_at TEXT NOT NULL
);
CREATE INDEX anki_notes_note ON anki_notes(noteid);
`,
  },
  {
    version: 9,
    sql: `
-- One tokenizer (test/unit/postings.test.ts): the card index is fed the terms of the text
-- module (text/searchTerms.ts) joined by spaces, which the simple tokenizer
-- reads back as they are; unicode61 folded and split text its own way. The
-- rows are written again at start (cards/cardIndexRebuild.ts). pages_fts has
-- been unused since the book text index (search/bookTextIndex.ts).
DROP TABLE notes_fts;
DROP TABLE pages_fts;
CREATE VIRTUAL TABLE notes_fts USING fts4(noteid, topicid, body, tokenize=simple);
CREATE INDEX notes_fts_content_noteid ON notes_fts_content(c0noteid);
CREATE INDEX notes_fts_content_topic ON notes_fts_content(c1topicid);
DELETE FROM meta WHERE key IN ('card_index_cjk', 'card_index_terms');
`,
  },
  {
    version: 10,
    sql: `
-- Which cards hold an excerpt text (test/api/batchGet.test.ts): the tree shows hasExcerpt for
-- every card, and finding it in note_texts read each card's text rows (most
-- of a 10k-card tree read). Partial: only excerpt rows, so it stays small.
-- (Version 10: 9 is the card search index rebuild for the one tokenizer.)
CREATE INDEX IF NOT EXISTS note_texts_excerpt ON note_texts(noteid) WHERE excerpt = 1;
`,
  },
  {
    version: 11,
    sql: `
-- Which cards changed since a snapshot (test/api/snapshots.test.ts): a restore compared all of
-- a set's cards with the snapshot's (most of a 10k-card restore). Triggers
-- stamp every card whose row, texts, hashtags or parts change with the
-- newest snapshot's rowid at that moment; cards stamped at or after a
-- snapshot's rowid are the only ones that can differ from it
-- (cards/cardEdits.ts). Triggers, not the operation log: some writes change
-- cards they do not log (siblings renumbered by a delete, a document's
-- source cleared). Cards already there are stamped now, so restoring an
-- older snapshot compares them all, as before. A VACUUM may renumber
-- snapshots' rowids, but only downwards and in order: stamps stay at or
-- above the snapshot they follow. Idempotent (IF NOT EXISTS; stamping again
-- only widens what is compared): a data dir set back to an older version runs it again.
CREATE TABLE IF NOT EXISTS card_edits (noteid TEXT PRIMARY KEY, stamp INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS card_edits_stamp ON card_edits(stamp);
INSERT OR REPLACE INTO card_edits(noteid, stamp) SELECT noteid, (SELECT ifnull(max(rowid), 0) FROM snapshots) FROM notes;
CREATE TRIGGER IF NOT EXISTS card_edits_notes_ins AFTER INSERT ON notes BEGIN ${stamp('NEW')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_notes_upd AFTER UPDATE ON notes BEGIN ${stamp('NEW')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_notes_del AFTER DELETE ON notes BEGIN DELETE FROM card_edits WHERE noteid = OLD.noteid; END;
CREATE TRIGGER IF NOT EXISTS card_edits_texts_ins AFTER INSERT ON note_texts BEGIN ${stamp('NEW')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_texts_upd AFTER UPDATE ON note_texts BEGIN ${stamp('NEW')} ${stamp('OLD')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_texts_del AFTER DELETE ON note_texts BEGIN ${stamp('OLD')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_tags_ins AFTER INSERT ON note_hashtags BEGIN ${stamp('NEW')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_tags_del AFTER DELETE ON note_hashtags BEGIN ${stamp('OLD')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_tags_upd AFTER UPDATE ON note_hashtags BEGIN ${stamp('NEW')} ${stamp('OLD')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_parts_ins AFTER INSERT ON note_parts BEGIN ${stamp('NEW')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_parts_del AFTER DELETE ON note_parts BEGIN ${stamp('OLD')} END;
CREATE TRIGGER IF NOT EXISTS card_edits_parts_upd AFTER UPDATE ON note_parts BEGIN ${stamp('NEW')} ${stamp('OLD')} END;
`,
  },
  {
    version: 12,
    sql: `
-- Deck options as Anki keeps them: a named preset (JSON options) that decks
-- share, and which preset each deck uses (none: the built-in default).
-- A review card can be suspended or buried (queue), flagged (0 none, 1..7 as
-- Anki's colours) and marked a leech; buried_until is the start of the study
-- day it comes back.
CREATE TABLE deck_presets (
  preset_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  options TEXT NOT NULL,                 -- JSON DeckOptions (decks/deckOptions.ts)
  created_at TEXT NOT NULL,
  modified_at TEXT NOT NULL
);
CREATE TABLE deck_settings (
  deck_id TEXT PRIMARY KEY,
  preset_id TEXT NOT NULL
);
-- queue: NULL (studied) | suspended | buried
ALTER TABLE deck_cards ADD COLUMN queue TEXT;
ALTER TABLE deck_cards ADD COLUMN buried_until TEXT;
ALTER TABLE deck_cards ADD COLUMN flag INTEGER NOT NULL DEFAULT 0;
ALTER TABLE deck_cards ADD COLUMN leech INTEGER NOT NULL DEFAULT 0;
CREATE INDEX deck_cards_due ON deck_cards(deck_id, due_at);
`,
  },
  {
    version: 13,
    sql: `
-- Anki's note → cards model: each Anki card (its note's guid and its
-- ordinal: template, or cloze number - 1) and the card it is reviewed on
-- (the note's own card when Anki made one card of the note, else one child
-- card per Anki card). Each imported note's type and fields as Anki wrote
-- them, and a hash of the title and body made of them: while the card still
-- reads the same, an export gives the note back whole. Notes imported before
-- this step have none of it and export as before.
CREATE TABLE IF NOT EXISTS anki_cards (
  guid TEXT NOT NULL,
  ord INTEGER NOT NULL,
  noteid TEXT NOT NULL,
  PRIMARY KEY (guid, ord)
);
CREATE INDEX IF NOT EXISTS anki_cards_note ON anki_cards(noteid);
CREATE TABLE IF NOT EXISTS anki_models (
  mid TEXT PRIMARY KEY,
  model TEXT NOT NULL                    -- JSON AnkiModel: name, cloze, fields, templates, css
);
-- fields: JSON array of the fields' HTML.
ALTER TABLE anki_notes ADD COLUMN mid TEXT;
ALTER TABLE anki_notes ADD COLUMN fields TEXT;
ALTER TABLE anki_notes ADD COLUMN text_hash TEXT;
`,
  },
  {
    version: 14,
    sql: `
-- deck_cards.state: the FSRS state (0 new, 1 learning, 2 review, 3
-- relearning) copied out of the fsrs JSON, so daily limits and statistics
-- count by state without reading JSON (sql.js took about 2 s per 100k cards).
-- Triggers keep it for every writer (grades, adds, imports, forget).
ALTER TABLE deck_cards ADD COLUMN state INTEGER NOT NULL DEFAULT 0;
UPDATE deck_cards SET state = (CASE WHEN json_valid(fsrs) THEN coalesce(json_extract(fsrs, '$.state'), 0) ELSE 0 END);
CREATE TRIGGER IF NOT EXISTS deck_cards_state_ins AFTER INSERT ON deck_cards BEGIN UPDATE deck_cards SET state = (CASE WHEN json_valid(NEW.fsrs) THEN coalesce(json_extract(NEW.fsrs, '$.state'), 0) ELSE 0 END) WHERE rowid = NEW.rowid; END;
CREATE TRIGGER IF NOT EXISTS deck_cards_state_upd AFTER UPDATE OF fsrs ON deck_cards BEGIN UPDATE deck_cards SET state = (CASE WHEN json_valid(NEW.fsrs) THEN coalesce(json_extract(NEW.fsrs, '$.state'), 0) ELSE 0 END) WHERE rowid = NEW.rowid; END;
CREATE INDEX IF NOT EXISTS deck_cards_state_due ON deck_cards(deck_id, state, due_at);
`,
  },
  {
    version: 15,
    sql: `
-- AnkiConnect reads notes in the order of their review cards, a page at a
-- time (created_at, then rowid, which the index holds), and a note's cards by
-- its id; without these each page or note read scanned every review card.
CREATE INDEX IF NOT EXISTS deck_cards_created ON deck_cards(created_at);
CREATE INDEX IF NOT EXISTS deck_cards_note ON deck_cards(source_note_id);
`,
  },
  {
    version: 16,
    sql: `
-- The due queue and statistics by index ranges (bench/decks.bench.ts): a
-- deck's cards by queue, state and due moment (the very expression the
-- queries use, coalesce(due_at, created_at)), then creation, so counts read
-- only index entries and picks stop at their limit; the review log with what
-- statistics read of each review, so they never read its rows.
CREATE INDEX IF NOT EXISTS deck_cards_queue_state_due ON deck_cards(deck_id, queue, state, coalesce(due_at, created_at), created_at);
CREATE INDEX IF NOT EXISTS review_logs_deck_stats ON review_logs(deck_id, reviewed_at, state_before, rating, elapsed_days, duration_ms);
`,
  },
  deckDueDaysMigration,
  {
    version: 18,
    sql: `
-- Two indexes every write paid for and no read needed (a 40,000-card import: ~0.15 s of its SQL):
-- review_logs_deck is the first two columns of review_logs_deck_stats, which serves each of its reads;
-- notes_fts_content_topic served only hiding a deleted set's cards, which now finds them by notes_topic.
DROP INDEX IF EXISTS review_logs_deck;
DROP INDEX IF EXISTS notes_fts_content_topic;
`,
  },
];
