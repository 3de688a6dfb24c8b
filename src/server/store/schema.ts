/**
 * The versioned schema. Each migration runs once, in order, inside the
 * journaled write path, so a migration is as durable as any other write.
 * Never edit a shipped step: add a new one.
 */
export interface Migration {
  version: number;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- Library: documents are files under <dataDir>/library/<folder>/<filename>.
CREATE TABLE documents (
  bookmd5 TEXT PRIMARY KEY,
  filename TEXT NOT NULL,
  folder TEXT NOT NULL DEFAULT '',
  size INTEGER NOT NULL,
  page_count INTEGER NOT NULL DEFAULT 0,
  extraction_state TEXT NOT NULL DEFAULT 'pending', -- pending | extracting | ready | failed
  extracted_pages INTEGER NOT NULL DEFAULT 0,
  extraction_error TEXT,
  outline_original TEXT,                 -- JSON segments from the PDF's bookmarks
  outline_ai TEXT,                       -- JSON segments written through POST toc
  toc_display TEXT NOT NULL DEFAULT 'original', -- original | ai
  added_at TEXT NOT NULL,
  modified_at TEXT NOT NULL
);
CREATE UNIQUE INDEX documents_path ON documents(folder, filename);

CREATE TABLE pages (
  bookmd5 TEXT NOT NULL,
  page INTEGER NOT NULL,                 -- PDF order, 1-based
  text TEXT NOT NULL,
  items TEXT,                            -- JSON text items with positions and font heights
  blocks TEXT,                           -- JSON layout blocks
  width REAL, height REAL,
  ocr INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (bookmd5, page)
);

-- Handwriting and blank areas of a page.
CREATE TABLE page_parts (
  content_id TEXT PRIMARY KEY,
  bookmd5 TEXT NOT NULL,
  page INTEGER NOT NULL,
  kind TEXT NOT NULL,                    -- ink | blank | blank_image
  rect TEXT,                             -- JSON {x,y,width,height}, normalised
  topicid TEXT,
  image BLOB,
  created_at TEXT NOT NULL
);
CREATE INDEX page_parts_page ON page_parts(bookmd5, page);

-- Study sets and review decks are both topics; kind tells them apart.
CREATE TABLE topics (
  topicid TEXT PRIMARY KEY,
  kind TEXT NOT NULL,                    -- studyset | deck
  title TEXT NOT NULL,
  root_note_id TEXT,
  hidden INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  modified_at TEXT NOT NULL
);

CREATE TABLE topic_documents (
  topicid TEXT NOT NULL,
  bookmd5 TEXT NOT NULL,
  position INTEGER NOT NULL,
  is_main INTEGER NOT NULL DEFAULT 0,
  added_at TEXT NOT NULL,
  PRIMARY KEY (topicid, bookmd5)
);

-- Cards. Index 0 of note_texts is the body, 1..N are comments.
CREATE TABLE notes (
  noteid TEXT PRIMARY KEY,
  topicid TEXT NOT NULL,
  parent_id TEXT,
  position INTEGER NOT NULL DEFAULT 0,
  title TEXT NOT NULL DEFAULT '',
  color_index INTEGER,
  fill_index INTEGER,
  folded INTEGER NOT NULL DEFAULT 0,
  hidden INTEGER NOT NULL DEFAULT 0,
  sub_map INTEGER NOT NULL DEFAULT 0,
  source_bookmd5 TEXT,
  source_page INTEGER,
  source_rect TEXT,                      -- JSON rectangle of the excerpt on its page
  reference_of TEXT,                     -- a reference copy points at its original
  created_at TEXT NOT NULL,
  modified_at TEXT NOT NULL
);
CREATE INDEX notes_topic ON notes(topicid);
CREATE INDEX notes_parent ON notes(parent_id);
CREATE INDEX notes_source ON notes(source_bookmd5);

CREATE TABLE note_texts (
  noteid TEXT NOT NULL,
  idx INTEGER NOT NULL,
  text TEXT NOT NULL,
  excerpt INTEGER NOT NULL DEFAULT 0,
  kind TEXT NOT NULL DEFAULT 'text',
  PRIMARY KEY (noteid, idx)
);

CREATE TABLE note_hashtags (
  noteid TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (noteid, path)
);

CREATE TABLE note_parts (
  content_id TEXT PRIMARY KEY,
  noteid TEXT NOT NULL,
  idx INTEGER NOT NULL,
  kind TEXT NOT NULL,
  mime_type TEXT,
  data TEXT,                             -- JSON: occlusion masks, ocrText, source page/rect
  blob BLOB
);
CREATE INDEX note_parts_note ON note_parts(noteid);

CREATE TABLE deck_cards (
  card_note_id TEXT PRIMARY KEY,
  deck_id TEXT NOT NULL,
  source_note_id TEXT NOT NULL,
  question TEXT,
  question_content_id TEXT,
  title TEXT,
  due_at TEXT,
  created_at TEXT NOT NULL,
  modified_at TEXT NOT NULL
);
CREATE UNIQUE INDEX deck_cards_source ON deck_cards(deck_id, source_note_id);

CREATE TABLE snapshots (
  snapshot_id TEXT PRIMARY KEY,
  topicid TEXT NOT NULL,
  description TEXT NOT NULL,
  note_count INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  data TEXT NOT NULL,                    -- JSON of the set's cards at that moment
  created_at TEXT NOT NULL
);
CREATE INDEX snapshots_topic ON snapshots(topicid);

CREATE TABLE bundles (
  bundle_id TEXT PRIMARY KEY,
  topicid TEXT NOT NULL,
  bookmd5 TEXT NOT NULL,
  state TEXT NOT NULL,                   -- preparing | prepared | imported | failed
  version INTEGER NOT NULL DEFAULT 0,
  root_note_id TEXT,
  job_id TEXT,
  origin TEXT NOT NULL DEFAULT 'bridge',
  preset TEXT NOT NULL,
  anchor_mode TEXT NOT NULL,
  segments TEXT NOT NULL,
  progress REAL,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE ui_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE sync_events (
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  bookmd5 TEXT,
  data TEXT,
  at TEXT NOT NULL
);

-- Device tokens from pairing (hashed) and one-time codes (hashed).
CREATE TABLE tokens (
  token_hash TEXT PRIMARY KEY,
  device_name TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE access_codes (
  code_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL,                    -- install | pair
  expires_at INTEGER NOT NULL,           -- epoch ms
  used INTEGER NOT NULL DEFAULT 0,
  failed_attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);

-- Full-text search. sql.js has FTS4, not FTS5; the index is written in the
-- same transaction as the card, so a search sees a write at once.
CREATE VIRTUAL TABLE notes_fts USING fts4(noteid, topicid, body, tokenize=unicode61);
CREATE VIRTUAL TABLE pages_fts USING fts4(bookmd5, page, body, tokenize=unicode61);
`,
  },
  {
    version: 2,
    sql: `
-- The card library (issue 7): an operation log (one row per write batch, the
-- undo group that snapshots and restore read), two-way note links, FSRS state
-- of review cards, and where a snapshot sits in the log.
CREATE TABLE operations (
  op_seq INTEGER PRIMARY KEY AUTOINCREMENT,
  topicid TEXT NOT NULL,
  kind TEXT NOT NULL,                    -- the route's verb: create, move, copy, delete, title, restore…
  actor TEXT NOT NULL,                   -- agent | user (from the bearer token since issue 18)
  note_ids TEXT NOT NULL,                -- JSON array of the cards the batch touched
  at TEXT NOT NULL
);
CREATE INDEX operations_topic ON operations(topicid, op_seq);

CREATE TABLE note_links (
  noteid TEXT NOT NULL,
  target_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (noteid, target_id)
);
CREATE INDEX note_links_target ON note_links(target_id);

-- notes.kind: card | summary. deck_cards.fsrs: the ts-fsrs card state (JSON).
-- snapshots.kind: agent | protection | pre_import | pre_delete | pre_remove.
ALTER TABLE notes ADD COLUMN kind TEXT NOT NULL DEFAULT 'card';
ALTER TABLE deck_cards ADD COLUMN fsrs TEXT;
ALTER TABLE deck_cards ADD COLUMN question_index INTEGER;
ALTER TABLE snapshots ADD COLUMN op_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshots ADD COLUMN kind TEXT NOT NULL DEFAULT 'agent';
`,
  },
  {
    version: 3,
    sql: `
-- FTS4 cannot look a row up by a column: deleting a card's index row by
-- noteid scanned the whole index (73 ms at 100k cards). Index the content
-- table and delete by docid through it (under 1 ms).
CREATE INDEX notes_fts_content_noteid ON notes_fts_content(c0noteid);
CREATE INDEX notes_fts_content_topic ON notes_fts_content(c1topicid);
`,
  },
  {
    version: 5,
    sql: `
-- One row per grade (issue 11): what ts-fsrs's ReviewLog holds, so FSRS
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
-- Identity is the token (issue 18): every agent has its own named token with
-- a scope, and only the HMAC of a token (keyed by <dataDir>/secret) is stored.
-- Tokens paired before have only a bare SHA-256: kept in legacy_sha256 until
-- their first use rekeys them. A revoked row keeps its name for the logs.
CREATE TABLE agent_tokens (
  token_id TEXT PRIMARY KEY,
  token_hmac TEXT UNIQUE,                -- hex HMAC-SHA-256, NULL once revoked
  legacy_sha256 TEXT UNIQUE,             -- paired before issue 18, until first use
  name TEXT NOT NULL,
  scope TEXT NOT NULL,                   -- read | write
  created_at TEXT NOT NULL,
  last_used_at TEXT,                     -- coarse: written at most once a minute per token
  revoked_at TEXT
);
INSERT INTO agent_tokens(token_id, legacy_sha256, name, scope, created_at)
  SELECT 'tok_' || substr(token_hash, 1, 16), token_hash, device_name, 'write', created_at FROM tokens;
DROP TABLE tokens;
-- Which agent token wrote (NULL: the person, or before issue 18).
ALTER TABLE operations ADD COLUMN token_id TEXT;
ALTER TABLE review_logs ADD COLUMN token_id TEXT;
-- What an install or pairing code grants: JSON {name, scope}.
ALTER TABLE access_codes ADD COLUMN grant_json TEXT;
`,
  },
  {
    version: 7,
    sql: `
-- The person approves what cannot be undone (issue 18): an agent's covered
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
-- Anki packages (issue 19): the note guid each imported Anki note became a
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
-- One tokenizer (issue 17): the card index is fed the terms of the text
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
-- Which cards hold an excerpt text (issue 20): the tree shows hasExcerpt for
-- every card, and finding it in note_texts read each card's text rows (most
-- of a 10k-card tree read). Partial: only excerpt rows, so it stays small.
-- (Version 10: 9 is the card search index rebuild of issue 17.)
CREATE INDEX IF NOT EXISTS note_texts_excerpt ON note_texts(noteid) WHERE excerpt = 1;
`,
  },
];
