import type { Database } from 'sql.js';
import { queryAll } from './sqlite';

/** What a library change is about, as GET /events names it. */
export type ChangeKind = 'card' | 'set' | 'deck' | 'document' | 'bundle' | 'approval';

/** The ids of one kind that a committed batch touched (`truncated`: more than the cap, re-read the kind). */
export interface LibraryChange {
  kind: ChangeKind;
  ids: string[];
  truncated?: boolean;
  /** An approval's new state (kind 'approval': one change per approval). */
  state?: string;
}

/** Tables that hold library content: how a changed row is named. Others (meta, tokens, search index) are bookkeeping. */
const TABLES: Record<string, { kind: ChangeKind; key: string }> = {
  notes: { kind: 'card', key: 'noteid' },
  note_texts: { kind: 'card', key: 'noteid' },
  note_hashtags: { kind: 'card', key: 'noteid' },
  note_parts: { kind: 'card', key: 'noteid' },
  note_links: { kind: 'card', key: 'noteid' },
  topics: { kind: 'set', key: 'topicid' }, // a deck is a topic too: resolved by its kind
  topic_documents: { kind: 'set', key: 'topicid' },
  snapshots: { kind: 'set', key: 'topicid' },
  operations: { kind: 'set', key: 'topicid' }, // also names the cards of the batch, deleted ones included
  deck_cards: { kind: 'deck', key: 'deck_id' },
  review_logs: { kind: 'deck', key: 'deck_id' },
  deck_settings: { kind: 'deck', key: 'deck_id' },
  documents: { kind: 'document', key: 'bookmd5' },
  page_parts: { kind: 'document', key: 'bookmd5' },
  bundles: { kind: 'bundle', key: 'bundle_id' },
  approvals: { kind: 'approval', key: 'approval_id' },
};

/** Rows remembered per table and batch; a bulk import names the first ones and says it was cut. */
const MAX_ROWS_PER_TABLE = 1000;

/**
 * An operation row whose card list is longer than this (a bulk import's 60,000 ids: parsing and naming them held
 * the loop ~0.1-0.25 s at acknowledgement) marks the cards cut, as a table past MAX_ROWS_PER_TABLE does.
 */
const MAX_OPERATION_IDS_JSON = 64 * 1024;

/** How many topics writes topicsWrittenSince can name. */
const RECENT_TOPICS = 64;

/** Where writesByTable counts a write whose rows were not noted (RowChanges.pause): a table of no name SQLite uses. */
const UNNOTED = '(rows not noted)';

/** The card index's rows (docid = rowid): what a cache of index terms re-reads (search/commonTerms.ts). */
const CARD_INDEX_TABLE = 'notes_fts_content';
const MAX_CARD_INDEX_ROWS = 5000;

/** One table's row changes: counted, and (cap > 0: library content or the card index) its rowids noted up to the cap. */
interface TableNotes {
  writes: number;
  topics: boolean;
  cap: number;
  /** This batch's noted rowids (the set in RowChanges.rows). */
  rows: Set<number> | undefined;
}

/** The card index rows a committed batch wrote or deleted; `all`: more than the cap, treat the whole index as changed. */
export interface CardIndexChange {
  docids: number[];
  all: boolean;
}

/**
 * Collects the rows a write batch changed (SQLite's update hook: table and
 * rowid) and, once the batch is acknowledged, names them by their ids.
 * A deleted row can no longer be named, except cards, which the batch's
 * operation-log row lists. Rows a failed write touched are dropped with it.
 */
export class RowChanges {
  private rows = new Map<string, Set<number>>();
  private cut = new Set<string>();
  private log: Array<[string, number]> = [];
  /** Per table written since the store opened: its row changes and where its rows are noted (one lookup a row). */
  private readonly tables = new Map<string, TableNotes>();
  /** The rowids of the last topics rows written, oldest first (every operation touches its set's or deck's row). */
  private readonly recentTopics: number[] = [];
  /** Kinds a write whose rows were not noted changed (pause). */
  private unnoted = new Set<ChangeKind>();
  private paused = false;

  constructor(private readonly db: Database) {
    this.hook();
  }

  private hook(): void {
    this.db.updateHook((_op, _dbName, table, rowid) => this.note(table, rowid));
  }

  /**
   * Stops noting rows until resume(), for a write of tens of thousands of rows (a large Anki import): SQLite calls
   * the hook for each row, and sql.js decodes two names and a 64-bit rowid per call (~0.45 s of a 40,000-card
   * import), for lists cut at MAX_ROWS_PER_TABLE anyway. Its `kinds` are then announced cut, the card index all
   * changed; writesByTable counts a write to a table of its own (not a schedule: a kept due pick is made anew) and
   * topicsWrittenSince cannot say.
   */
  pause(kinds: readonly ChangeKind[]): void {
    if (this.paused) return;
    this.paused = true;
    this.db.updateHook(null);
    for (const k of kinds) this.unnoted.add(k);
    (this.tables.get(UNNOTED) ?? this.notesOf(UNNOTED)).writes++;
    const topics = this.tables.get('topics') ?? this.notesOf('topics');
    // More writes than recentTopics holds: for a count taken before, topicsWrittenSince answers undefined.
    topics.writes += RECENT_TOPICS + 1;
    this.recentTopics.length = 0;
  }

  /** Notes rows again; `failed`: the paused write was rolled back, so its kinds changed nothing. */
  resume(failed = false): void {
    if (failed) this.unnoted.clear();
    if (!this.paused) return;
    this.paused = false;
    this.hook();
  }

  /**
   * Row changes per table since the store opened, every table's, failed writes' included: never goes back, so
   * equal counts mean the table was not written (what a kept answer asks: domain/decks/dueCache.ts).
   */
  get writesByTable(): ReadonlyMap<string, number> {
    return new Map([...this.tables].map(([table, t]) => [table, t.writes]));
  }

  private note(table: string, rowid: number): void {
    const t = this.tables.get(table) ?? this.notesOf(table);
    t.writes++;
    if (t.topics && this.recentTopics.push(rowid) > RECENT_TOPICS) this.recentTopics.shift();
    if (t.cap === 0) return;
    let set = t.rows;
    if (!set) this.rows.set(table, (t.rows = set = new Set()));
    if (set.size >= t.cap) {
      if (!set.has(rowid)) this.cut.add(table);
      return;
    }
    if (!set.has(rowid)) {
      set.add(rowid);
      this.log.push([table, rowid]);
    }
  }

  private notesOf(table: string): TableNotes {
    const cap = table === CARD_INDEX_TABLE ? MAX_CARD_INDEX_ROWS : table in TABLES ? MAX_ROWS_PER_TABLE : 0;
    const t: TableNotes = { writes: 0, topics: table === 'topics', cap, rows: this.rows.get(table) };
    this.tables.set(table, t);
    return t;
  }

  /** The rowids of the topics rows written since writesByTable counted `count` of them; undefined if too many to say. */
  topicsWrittenSince(count: number): number[] | undefined {
    const since = (this.tables.get('topics')?.writes ?? 0) - count;
    return since <= this.recentTopics.length ? this.recentTopics.slice(this.recentTopics.length - since) : undefined;
  }

  /** Where a write starts: what it notes is forgotten if it throws. */
  mark(): number {
    return this.log.length;
  }

  rollback(mark: number): void {
    for (const [table, rowid] of this.log.splice(mark)) this.rows.get(table)?.delete(rowid);
  }

  /** The changes since the last call, by kind (after COMMIT: rows read as committed), and the card index rows. */
  take(): { changes: LibraryChange[]; cardIndex: CardIndexChange } {
    const rows = this.rows;
    const cut = this.cut;
    const unnoted = this.unnoted;
    this.rows = new Map();
    for (const t of this.tables.values()) t.rows = undefined;
    this.cut = new Set();
    this.log = [];
    this.unnoted = new Set();
    const all = cut.has(CARD_INDEX_TABLE) || unnoted.has('card');
    const cardIndex = { docids: [...(rows.get(CARD_INDEX_TABLE) ?? [])], all };
    rows.delete(CARD_INDEX_TABLE);
    return { changes: this.named(rows, cut, unnoted), cardIndex };
  }

  private named(rows: Map<string, Set<number>>, cut: Set<string>, unnoted: Set<ChangeKind>): LibraryChange[] {
    const byKind = new Map<ChangeKind, { ids: Set<string>; truncated: boolean }>();
    const approvals: LibraryChange[] = [];
    const add = (kind: ChangeKind, id: unknown, truncated = false) => {
      let entry = byKind.get(kind);
      if (!entry) byKind.set(kind, (entry = { ids: new Set(), truncated: false }));
      if (typeof id === 'string' && id) entry.ids.add(id);
      if (truncated) entry.truncated = true;
    };
    for (const kind of unnoted) add(kind, undefined, true);
    for (const [table, rowids] of rows) {
      const { kind, key } = TABLES[table];
      const list = [...rowids].join(',');
      if (table === 'topics') {
        for (const r of queryAll<{ topicid: string; kind: string }>(
          this.db,
          `SELECT topicid, kind FROM topics WHERE rowid IN (${list})`,
        ))
          add(r.kind === 'deck' ? 'deck' : 'set', r.topicid);
        continue;
      }
      if (table === 'approvals') {
        for (const r of queryAll<{ id: string; state: string }>(
          this.db,
          `SELECT approval_id AS id, state FROM approvals WHERE rowid IN (${list})`,
        ))
          approvals.push({ kind: 'approval', ids: [r.id], state: r.state });
        continue;
      }
      // An operation's card list, unless it is a bulk one: that says the cards were cut instead.
      const extra =
        table === 'operations'
          ? `, CASE WHEN length(note_ids) <= ${MAX_OPERATION_IDS_JSON} THEN note_ids END AS note_ids, length(note_ids) > ${MAX_OPERATION_IDS_JSON} AS bulk`
          : '';
      for (const r of queryAll<Record<string, string>>(
        this.db,
        `SELECT ${key} AS id${extra} FROM ${table} WHERE rowid IN (${list})`,
      )) {
        add(kind, r.id, cut.has(table));
        if (table !== 'operations') continue;
        if (r.bulk) add('card', undefined, true);
        else for (const noteId of parseIds(r.note_ids)) add('card', noteId);
      }
      if (cut.has(table)) add(kind, undefined, true);
    }
    // A deck is a topic: operations and snapshots of a deck name it as one.
    const sets = byKind.get('set');
    if (sets?.ids.size) {
      const list = [...sets.ids].map((id) => `'${id.replace(/'/g, "''")}'`).join(',');
      for (const r of queryAll<{ topicid: string }>(
        this.db,
        `SELECT topicid FROM topics WHERE kind = 'deck' AND topicid IN (${list})`,
      )) {
        sets.ids.delete(r.topicid);
        add('deck', r.topicid);
      }
      if (!sets.ids.size && !sets.truncated) byKind.delete('set');
    }
    return [...byKind]
      .map(([kind, e]): LibraryChange => ({ kind, ids: [...e.ids], ...(e.truncated ? { truncated: true } : {}) }))
      .concat(approvals);
  }
}

function parseIds(json: string | undefined): string[] {
  try {
    const v: unknown = JSON.parse(json ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
