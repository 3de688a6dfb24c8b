/**
 * The versioned schema. Each migration runs once, in order, inside the
 * journaled write path, so a migration is as durable as any other write.
 * Never edit a shipped step: add a new one.
 */
import { laterMigrations } from './schemaMigrations';

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
-- The card library (docs/ARCHITECTURE.md): an operation log (one row per write batch, the
-- undo group that snapshots and restore read), two-way note links, FSRS state
-- of review cards, and where a snapshot sits in the log.
CREATE TABLE operations (
  op_seq INTEGER PRIMARY KEY AUTOINCREMENT,
  topicid TEXT NOT NULL,
  kind TEXT NOT NULL,                    -- the route's verb: create, move, copy, delete, title, restore…
  actor TEXT NOT NULL,                   -- agent | user (from the bearer token since per-agent tokens)
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
  ...laterMigrations,
];
