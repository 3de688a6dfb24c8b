import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { SqlParam } from '../store/journal';
import type { Row, WriteTx } from '../store/store';
import { type Db, type NoteRow, inList, purgeNotes } from './noteRows';
import { cardIndexBody } from '../search/cardIndexText';

/**
 * What a snapshot holds: every card of a set (hidden ones too) with its
 * texts, hashtags, parts and the links touching it, plus the set's document
 * list (kept for the record; restore writes back only the cards). Rows are
 * kept exactly as stored, so a restore gives back the very same cards.
 *
 * The JSON is built by SQLite itself (json_group_array): materialising 10k
 * rows as JS objects costs several times more than one string. Blobs are
 * `{"$hex": …}`.
 */
export interface SnapshotContent {
  format: 1;
  notes: NoteRow[];
  texts: Row[];
  hashtags: Row[];
  parts: Row[];
  links: Row[];
  documents: Row[];
}

type Section = Exclude<keyof SnapshotContent, 'format'>;

const OF_SET = 'SELECT noteid FROM notes WHERE topicid = ?1';
/** The cards named by a JSON array in ?2 (for reading back only what a restore rewrote). */
const OF_LIST = 'SELECT value FROM json_each(?2)';

/** Each section: its table and its rows, in a fixed order so equal content gives equal JSON. */
const sections = (of: string): ReadonlyArray<[Section, string, string]> => [
  ['notes', 'notes', `SELECT * FROM notes WHERE ${of === OF_SET ? 'topicid = ?1' : `noteid IN (${of})`} ORDER BY noteid`],
  ['texts', 'note_texts', `SELECT * FROM note_texts WHERE noteid IN (${of}) ORDER BY noteid, idx`],
  ['hashtags', 'note_hashtags', `SELECT * FROM note_hashtags WHERE noteid IN (${of}) ORDER BY noteid, path`],
  ['parts', 'note_parts', `SELECT * FROM note_parts WHERE noteid IN (${of}) ORDER BY noteid, idx, content_id`],
  ['links', 'note_links', `SELECT * FROM note_links WHERE noteid IN (${of}) OR target_id IN (${of}) ORDER BY noteid, target_id`],
  ['documents', 'topic_documents', 'SELECT * FROM topic_documents WHERE topicid = ?1 ORDER BY position, bookmd5'],
];

interface Column {
  name: string;
  blob: boolean;
}

/** Columns of a table as they are now (a later migration may add some a snapshot lacks). */
function columnsOf(db: Db, table: string): Column[] {
  return db.all<{ name: string; type: string }>(`PRAGMA table_info(${table})`).map((c) => ({ name: c.name, blob: c.type.toUpperCase() === 'BLOB' }));
}

const rowObject = (cols: readonly Column[]) =>
  `json_object(${cols.map((c) => `'${c.name}', ${c.blob ? `CASE WHEN "${c.name}" IS NULL THEN NULL ELSE json_object('$hex', hex("${c.name}")) END` : `"${c.name}"`}`).join(', ')})`;

/**
 * One query per section, joined here: the same bytes as one json_object over
 * the sections, without SQLite parsing each section's JSON again (json()) to
 * nest it. Read as UTF-8 bytes (CAST AS BLOB): a snapshot only hashes and
 * compresses them, so they are never decoded into a string and encoded back.
 */
function contentBytes(db: Db, of: string, params: SqlParam[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('{"format":1')];
  for (const [section, table, select] of sections(of)) {
    // A statement takes only the parameters it names (?2 is the id list).
    const own = select.includes('?2') ? params : params.slice(0, 1);
    const j = db.get<{ j: Uint8Array }>(`SELECT CAST(json_group_array(${rowObject(columnsOf(db, table))}) AS BLOB) AS j FROM (${select})`, own)!.j;
    chunks.push(Buffer.from(`,"${section}":`), Buffer.from(j.buffer, j.byteOffset, j.byteLength));
  }
  chunks.push(Buffer.from('}'));
  return Buffer.concat(chunks);
}

/** The set's content as deterministic JSON (UTF-8), in one query per section. */
export const readSnapshotBytes = (db: Db, topicid: string) => contentBytes(db, OF_SET, [topicid]);

/** The same as a string. */
export const readSnapshotJson = (db: Db, topicid: string) => readSnapshotBytes(db, topicid).toString('utf8');

/** The content of the named cards only (their links and the set's documents included). */
export const readCardsJson = (db: Db, topicid: string, noteIds: readonly string[]) => parseContent(contentBytes(db, OF_LIST, [topicid, JSON.stringify(noteIds)]).toString('utf8'));

/** JSON as SQLite writes it for the snapshot: byte arrays as `{"$hex"}`. */
export const toJson = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? { $hex: Buffer.from(x).toString('hex').toUpperCase() } : x));

/**
 * The JSON of a snapshot row written before issue 10, whose content is still
 * inline: a deflated blob, or plain JSON text in the oldest rows. New
 * snapshots keep their content in a file (snapshotFiles.ts).
 */
export function inlineJson(data: string | Uint8Array): string {
  return typeof data === 'string' ? data : inflateRawSync(data).toString('utf8');
}

export function parseContent(json: string): SnapshotContent {
  const c = JSON.parse(json);
  const out: SnapshotContent = { format: 1, notes: c.notes ?? [], texts: c.texts ?? [], hashtags: c.hashtags ?? [], parts: c.parts ?? [], links: c.links ?? [], documents: c.documents ?? [] };
  // Blobs only live in parts; a reviver over every value would cost more than the parse.
  for (const row of out.parts) {
    for (const [k, v] of Object.entries(row) as Array<[string, unknown]>) {
      const hex = v && typeof v === 'object' ? (v as { $hex?: unknown }).$hex : undefined;
      if (typeof hex === 'string') row[k] = new Uint8Array(Buffer.from(hex, 'hex'));
    }
  }
  return out;
}

/** sha256 of the content's UTF-8 bytes (given as bytes, or as the string they encode). */
export const contentHash = (json: string | Uint8Array) => createHash('sha256').update(json).digest('hex');

/** The text search indexes for a card: the same text `reindexNote` writes (title, texts by index, then #tags). */
function ftsBody(note: NoteRow, texts: readonly Row[], tags: readonly Row[]): string {
  return cardIndexBody([note.title, ...texts.map((t) => String(t.text)), ...tags.map((t) => `#${String(t.path)}`)].join('\n'));
}

/** Inserts rows in one statement: SQLite unpacks the JSON array itself (json_each), so 10k cards are one parameter. */
function insertRows(tx: WriteTx, table: string, rows: readonly Row[]): void {
  if (!rows.length) return;
  const cols = columnsOf(tx, table).filter((c) => c.name in rows[0]);
  const values = cols.map((c) => {
    const path = `'$."${c.name}"'`;
    return c.blob ? `unhex(json_extract(value, '$."${c.name}"."$hex"'))` : `json_extract(value, ${path})`;
  });
  tx.run(`INSERT INTO ${table}(${cols.map((c) => `"${c.name}"`).join(', ')}) SELECT ${values.join(', ')} FROM json_each(?)`, [toJson(rows)]);
}

/**
 * Snapshot card ids that now belong to another set (cards never change sets, so this guards against corrupt data).
 * Ids the set holds now (`here`, read in the same transaction) are not looked up.
 */
export function idsTakenElsewhere(db: Db, topicid: string, c: SnapshotContent, here: ReadonlySet<string> = new Set()): string[] {
  const ids = c.notes.map((n) => n.noteid).filter((id) => !here.has(id));
  if (!ids.length) return [];
  return db.all<{ noteid: string }>(`SELECT noteid FROM notes WHERE topicid <> ? AND noteid IN (SELECT value FROM json_each(?))`, [topicid, JSON.stringify(ids)]).map((r) => r.noteid);
}

const groupByNote = (rows: readonly Row[]) => {
  const m = new Map<string, Row[]>();
  for (const r of rows) {
    const k = String(r.noteid);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
};

const sameValue = (a: unknown, b: unknown) =>
  a === b || (a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b));

/** Same columns, same values: compared in place (serialising 2 × 10k cards to compare them cost most of a restore). */
function sameRow(a: object, b: object): boolean {
  if (a === b) return true; // an unedited card's row is the snapshot's own (cardEdits.ts)
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!(k in b) || !sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

const sameRows = (a: readonly Row[] | undefined, b: readonly Row[] | undefined) => {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((r, i) => sameRow(r, y[i]));
};

/** Per card: its row, and what search and batch-get read with it (texts, tags, parts), grouped for comparing. */
function cardKeys(c: SnapshotContent) {
  const texts = groupByNote(c.texts);
  const tags = groupByNote(c.hashtags);
  const parts = groupByNote(c.parts);
  return { notes: new Map(c.notes.map((n) => [n.noteid, n])), texts, tags, parts };
}

/** The cards of `only` (their rows, texts, tags and parts). */
function pick(c: SnapshotContent, only: ReadonlySet<string>): SnapshotContent {
  const of = <T extends object>(rows: readonly T[]) => rows.filter((r) => only.has(String((r as { noteid?: unknown }).noteid)));
  return { ...c, notes: of(c.notes), texts: of(c.texts), hashtags: of(c.hashtags), parts: of(c.parts) };
}

/**
 * Makes the set's cards exactly the snapshot's (ids, positions, timestamps,
 * hidden flags, texts, tags, parts, links) by rewriting only what differs
 * from `current`: a card whose row alone changed (moved, recoloured) keeps
 * its search entry; the search index is rewritten only for cards whose
 * title, texts, tags or visibility changed. Links to cards outside the set
 * are restored only where the other card still exists. Document membership
 * and tables of contents are not touched. With `only`, the other cards are
 * known to be as the snapshot has them (cardEdits.ts) and are not compared.
 */
export function writeBackContent(tx: WriteTx, topicid: string, snap: SnapshotContent, current: SnapshotContent, only?: ReadonlySet<string>): { rewritten: string[] } {
  const want = cardKeys(only ? pick(snap, only) : snap);
  const have = cardKeys(only ? pick(current, only) : current);
  const rowOnly: string[] = [];
  const full: string[] = [];
  const sameContent = (id: string) => sameRows(have.texts.get(id), want.texts.get(id)) && sameRows(have.tags.get(id), want.tags.get(id)) && sameRows(have.parts.get(id), want.parts.get(id));
  for (const [id, w] of want.notes) {
    const h = have.notes.get(id);
    if (!h) full.push(id);
    else if (h.title !== w.title || h.hidden !== w.hidden || !sameContent(id)) full.push(id);
    else if (!sameRow(h, w)) rowOnly.push(id);
  }
  const gone = [...have.notes.keys()].filter((id) => !want.notes.has(id));

  // Links first: purgeNotes drops every link touching a purged card; the wanted ones are written back below.
  const inSet = new Set(snap.notes.map((n) => n.noteid));
  const outside = [...new Set(snap.links.flatMap((l) => [String(l.noteid), String(l.target_id)]).filter((id) => !inSet.has(id)))];
  const alive = new Set(outside.length ? tx.all<{ noteid: string }>(`SELECT noteid FROM notes WHERE noteid IN ${inList(outside.length)}`, outside).map((r) => r.noteid) : []);
  const wantLinks = snap.links.filter((l) => [l.noteid, l.target_id].every((id) => inSet.has(String(id)) || alive.has(String(id))));

  purgeNotes(tx, [...gone, ...full]);
  for (let i = 0; i < rowOnly.length; i += 500) {
    const chunk = rowOnly.slice(i, i + 500);
    tx.run(`DELETE FROM notes WHERE noteid IN ${inList(chunk.length)}`, chunk);
  }
  const rewrite = new Set([...full, ...rowOnly]);
  const fullSet = new Set(full);
  insertRows(tx, 'notes', snap.notes.filter((n) => rewrite.has(n.noteid)) as unknown as Row[]);
  insertRows(tx, 'note_texts', snap.texts.filter((r) => fullSet.has(String(r.noteid))));
  insertRows(tx, 'note_hashtags', snap.hashtags.filter((r) => fullSet.has(String(r.noteid))));
  insertRows(tx, 'note_parts', snap.parts.filter((r) => fullSet.has(String(r.noteid))));
  const fts = snap.notes
    .filter((n) => fullSet.has(n.noteid) && !n.hidden)
    .map((n) => ({ noteid: n.noteid, topicid: n.topicid, body: ftsBody(n, want.texts.get(n.noteid) ?? [], want.tags.get(n.noteid) ?? []) }));
  insertRows(tx, 'notes_fts', fts);

  // Links: what is there now (after the purge) against what the snapshot wants.
  const nowLinks = tx.all<Row>(`SELECT * FROM note_links WHERE noteid IN (SELECT noteid FROM notes WHERE topicid = ?1) OR target_id IN (SELECT noteid FROM notes WHERE topicid = ?1)`, [topicid]);
  const wantKeys = new Set(wantLinks.map(toJson));
  const nowKeys = new Set(nowLinks.map(toJson));
  for (const l of nowLinks) if (!wantKeys.has(toJson(l))) tx.run('DELETE FROM note_links WHERE noteid = ? AND target_id = ?', [l.noteid as SqlParam, l.target_id as SqlParam]);
  insertRows(tx, 'note_links', wantLinks.filter((l) => !nowKeys.has(toJson(l))));
  return { rewritten: [...rewrite, ...gone] };
}
