import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { SqlParam } from '../../ground/store/journal';
import type { Row } from '../../ground/store/store';
import type { Db, NoteRow } from './noteRows';
import { buildIndex, ROW_SECTIONS, type RowIndex, SECTIONS, type SectionChunk } from './snapshotIndex';

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

export type Section = Exclude<keyof SnapshotContent, 'format'>;

const OF_SET = 'SELECT noteid FROM notes WHERE topicid = ?1';
/** The cards named by a JSON array in ?2 (for reading back only what a restore rewrote). */
const OF_LIST = 'SELECT value FROM json_each(?2)';

/** Each section: its table and its rows, in a fixed order (each ORDER BY is unique) so equal content gives equal JSON. */
function sections(db: Db, of: string, topicid: SqlParam): ReadonlyArray<[Section, string, string]> {
  const cards = of === OF_SET ? setSize(db, topicid) : 0;
  const where = (table: string, ...cols: string[]) =>
    of === OF_SET ? ofSetWhere(db, table, cols, cards) : cols.map((c) => `"${c}" IN (${of})`).join(' OR ');
  return [
    [
      'notes',
      'notes',
      `SELECT * FROM notes WHERE ${of === OF_SET ? 'topicid = ?1' : `noteid IN (${of})`} ORDER BY noteid`,
    ],
    ['texts', 'note_texts', `SELECT * FROM note_texts WHERE noteid IN (${of}) ORDER BY noteid, idx`],
    [
      'hashtags',
      'note_hashtags',
      `SELECT * FROM note_hashtags WHERE ${where('note_hashtags', 'noteid')} ORDER BY noteid, path`,
    ],
    [
      'parts',
      'note_parts',
      `SELECT * FROM note_parts WHERE ${where('note_parts', 'noteid')} ORDER BY noteid, idx, content_id`,
    ],
    [
      'links',
      'note_links',
      `SELECT * FROM note_links WHERE ${where('note_links', 'noteid', 'target_id')} ORDER BY noteid, target_id`,
    ],
    ['documents', 'topic_documents', 'SELECT * FROM topic_documents WHERE topicid = ?1 ORDER BY position, bookmd5'],
  ];
}

/**
 * Which rows of `table` name (in any of `cols`) a card of the set ?1 with
 * `cards` cards. Through the set's card ids, each probed in the table's
 * index; but a table with fewer rows than that (most libraries hold few
 * links or pictures) is scanned instead, each row's card looked up by id:
 * 10k cards and no links, 0.1 ms instead of 28. The same rows either way.
 */
export function ofSetWhere(db: Db, table: string, cols: readonly string[], cards: number): string {
  const few = (db.get<{ n: number | null }>(`SELECT max(rowid) AS n FROM ${table}`)?.n ?? 0) < cards;
  return cols
    .map((c) =>
      few
        ? `EXISTS (SELECT 1 FROM notes s WHERE s.noteid = ${table}."${c}" AND s.topicid = ?1)`
        : `"${c}" IN (${OF_SET})`,
    )
    .join(' OR ');
}

/** The number of cards in a set. */
export const setSize = (db: Db, topicid: SqlParam) =>
  db.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE topicid = ?', [topicid])?.n ?? 0;

export interface Column {
  name: string;
  blob: boolean;
}

/** Columns of a table as they are now (a later migration may add some a snapshot lacks). */
export function columnsOf(db: Db, table: string): Column[] {
  return db
    .all<{ name: string; type: string }>(`PRAGMA table_info(${table})`)
    .map((c) => ({ name: c.name, blob: c.type.toUpperCase() === 'BLOB' }));
}

const rowObject = (cols: readonly Column[]) =>
  `json_object(${cols.map((c) => `'${c.name}', ${c.blob ? `CASE WHEN "${c.name}" IS NULL THEN NULL ELSE json_object('$hex', hex("${c.name}")) END` : `"${c.name}"`}`).join(', ')})`;

/** A content's JSON (UTF-8) and, when asked for, where each card's rows sit in it (snapshotIndex.ts). */
export interface ContentData {
  bytes: Buffer;
  index?: RowIndex;
}

/**
 * One query per section, joined here: the same bytes as one json_object over
 * the sections, without SQLite parsing each section's JSON again (json()) to
 * nest it. Read as UTF-8 bytes (CAST AS BLOB): a snapshot only hashes and
 * compresses them, so they are never decoded into a string and encoded back.
 * With `indexed`, a row section's query also lists its rows' noteids (in the
 * same pass over the rows) for the row index.
 */
function contentBytes(db: Db, of: string, params: SqlParam[], indexed = false): ContentData {
  const found = sections(db, of, params[0]).map((q) =>
    sectionJson(db, q, params, indexed && (ROW_SECTIONS as readonly string[]).includes(q[0])),
  );
  const { bytes, at } = frameContent(found.map((f) => f.bytes));
  found.forEach((f, i) => (f.at = at[i]));
  return { bytes, index: indexed ? buildIndex(found, sqliteVersion(db)) : undefined };
}

/** One section's rows as a JSON array (a statement takes only the parameters it names: ?2 is the id list). */
function sectionJson(
  db: Db,
  [section, table, select]: readonly [Section, string, string],
  params: SqlParam[],
  ids: boolean,
): SectionChunk {
  const cols = columnsOf(db, table);
  const own = select.includes('?2') ? params : params.slice(0, 1);
  const r = db.get<{ j: Uint8Array; ids?: string }>(
    `SELECT CAST(json_group_array(${rowObject(cols)}) AS BLOB) AS j${ids ? ', json_group_array(noteid) AS ids' : ''} FROM (${select})`,
    own,
  )!;
  return {
    name: section,
    bytes: Buffer.from(r.j.buffer, r.j.byteOffset, r.j.byteLength),
    at: 0,
    firstColumn: cols[0]?.name ?? '',
    noteIdsJson: ids ? r.ids : undefined,
  };
}

/** The content's JSON from its sections' arrays (SECTIONS order), and where each array starts in it. */
export function frameContent(arrays: readonly Buffer[]): { bytes: Buffer; at: number[] } {
  const chunks: Buffer[] = [Buffer.from('{"format":1')];
  const at: number[] = [];
  let length = chunks[0].length;
  arrays.forEach((a, i) => {
    const key = Buffer.from(`,"${SECTIONS[i]}":`);
    chunks.push(key, a);
    at.push(length + key.length);
    length += key.length + a.length;
  });
  chunks.push(Buffer.from('}'));
  return { bytes: Buffer.concat(chunks, length + 1), at };
}

/** These sections of the set's content, as contentBytes reads them. */
export function readSetSections(db: Db, topicid: string, names: readonly Section[]): Map<Section, Buffer> {
  const out = new Map<Section, Buffer>();
  for (const q of sections(db, OF_SET, topicid))
    if (names.includes(q[0])) out.set(q[0], sectionJson(db, q, [topicid], false).bytes);
  return out;
}

/** The SQLite that renders the JSON: a content's row bytes are reused (snapshotSplice.ts) only under the same one. */
export const sqliteVersion = (db: Db) => db.get<{ v: string }>('SELECT sqlite_version() AS v')!.v;

/** The named cards' content as JSON (their links and the set's documents included), with its row index. */
export const readCards = (db: Db, topicid: string, noteIds: readonly string[]) =>
  contentBytes(db, OF_LIST, [topicid, JSON.stringify(noteIds)], true);

/** The set's content as deterministic JSON (UTF-8) with its row index, in one query per section: what a snapshot file holds. */
export const readSnapshot = (db: Db, topicid: string) => contentBytes(db, OF_SET, [topicid], true);

/** The set's content as deterministic JSON (UTF-8). */
export const readSnapshotBytes = (db: Db, topicid: string) => contentBytes(db, OF_SET, [topicid]).bytes;

/** The same as a string. */
export const readSnapshotJson = (db: Db, topicid: string) => readSnapshotBytes(db, topicid).toString('utf8');

/** The content of the named cards only (their links and the set's documents included). */
export const readCardsJson = (db: Db, topicid: string, noteIds: readonly string[]) =>
  parseContent(contentBytes(db, OF_LIST, [topicid, JSON.stringify(noteIds)]).bytes.toString('utf8'));

/** JSON as SQLite writes it for the snapshot: byte arrays as `{"$hex"}`. */
export const toJson = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) =>
    x instanceof Uint8Array ? { $hex: Buffer.from(x).toString('hex').toUpperCase() } : x,
  );

/**
 * The JSON of a snapshot row written before snapshot files (test/api/snapshotFiles.test.ts), whose content is still
 * inline: a deflated blob, or plain JSON text in the oldest rows. New
 * snapshots keep their content in a file (snapshotFiles.ts).
 */
export function inlineJson(data: string | Uint8Array): string {
  return typeof data === 'string' ? data : inflateRawSync(data).toString('utf8');
}

export function parseContent(json: string): SnapshotContent {
  const c = JSON.parse(json) as Partial<SnapshotContent>;
  const out: SnapshotContent = {
    format: 1,
    notes: c.notes ?? [],
    texts: c.texts ?? [],
    hashtags: c.hashtags ?? [],
    parts: c.parts ?? [],
    links: c.links ?? [],
    documents: c.documents ?? [],
  };
  unhexParts(out.parts);
  return out;
}

/** Blobs only live in parts (as `{"$hex"}`); a reviver over every value would cost more than the parse. */
export function unhexParts(parts: Row[]): void {
  for (const row of parts) {
    for (const [k, v] of Object.entries(row) as Array<[string, unknown]>) {
      const hex = v && typeof v === 'object' ? (v as { $hex?: unknown }).$hex : undefined;
      if (typeof hex === 'string') row[k] = new Uint8Array(Buffer.from(hex, 'hex'));
    }
  }
}

/** The rows of `only`'s cards (notes, texts, hashtags, parts); links and documents as they are. */
export function pickCards(c: SnapshotContent, only: ReadonlySet<string>): SnapshotContent {
  const of = <T extends object>(rows: readonly T[]) =>
    rows.filter((r) => only.has(String((r as { noteid?: unknown }).noteid)));
  return { ...c, notes: of(c.notes), texts: of(c.texts), hashtags: of(c.hashtags), parts: of(c.parts) };
}

export const emptyContent = (): SnapshotContent => ({
  format: 1,
  notes: [],
  texts: [],
  hashtags: [],
  parts: [],
  links: [],
  documents: [],
});

/** sha256 of the content's UTF-8 bytes (given as bytes, or as the string they encode). */
export const contentHash = (json: string | Uint8Array) => createHash('sha256').update(json).digest('hex');
