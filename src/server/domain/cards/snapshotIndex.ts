/**
 * Where each card's rows sit in a snapshot's content JSON, so a restore
 * parses only the cards it compares (the UTF-8 decode and JSON.parse of a
 * 10k-card content cost more than the rest of reading it). Written beside
 * the content in SBSNAP03 files (snapshotFiles.ts); derived data, checked
 * when read (snapshotView.ts re-checks every row it parses).
 *
 * Binary, u32 LE: the ids' JSON length; per section (SECTIONS order) the
 * byte span of its array, brackets included; the SQLite version's length and
 * the version; the ids' JSON (the notes section's noteids, in row order);
 * per row section its row count R, R row
 * starts and R note ordinals (the row's card's place in the ids). Row r ends
 * one byte before row r+1 starts (the comma), the last one byte before its
 * section's end (the bracket).
 *
 * Every section is ordered by noteid first (snapshotContent.ts), so the ids
 * ascend and so do each section's ordinals; a reader checks both, and that
 * each row it parses and its neighbours belong to the cards the index says,
 * so an index that lies about which rows are a card's is caught, not obeyed.
 */

export const SECTIONS = ['notes', 'texts', 'hashtags', 'parts', 'links', 'documents'] as const;
export type SectionName = (typeof SECTIONS)[number];
/** The sections whose rows belong to one card each. */
export const ROW_SECTIONS = ['notes', 'texts', 'hashtags', 'parts'] as const;
export type RowSection = (typeof ROW_SECTIONS)[number];

export interface RowIndex {
  /** sqlite_version() of the SQLite that wrote the JSON. */
  sqlite: string;
  /** The content's card ids, in the notes section's order. */
  ids: string[];
  /** The raw JSON of `ids`, as written. */
  idsJson: Buffer;
  spans: Record<SectionName, [start: number, end: number]>;
  rows: Record<RowSection, { start: Uint32Array; note: Uint32Array }>;
}

/** A section as contentBytes read it: its array's bytes, where they start in the content, its first column, and (row sections) its rows' noteids as JSON. */
export interface SectionChunk {
  name: SectionName;
  bytes: Buffer;
  at: number;
  firstColumn: string;
  noteIdsJson?: string;
}

/**
 * The index of a content made of these chunks, or undefined when its rows
 * cannot be told apart for certain (then the file is written without one and
 * read whole). A row starts where `},{"<first column>":` is: SQLite's JSON
 * has no spaces, a `"` inside a string is escaped, and one closing a string
 * is followed by `,`, `:`, `}` or `]`, never a column name, so that sequence
 * only occurs between two rows. The count must match SQLite's row count.
 */
export function buildIndex(chunks: readonly SectionChunk[], sqlite: string): RowIndex | undefined {
  const spans = {} as RowIndex['spans'];
  const rows = {} as RowIndex['rows'];
  let ids: string[] | undefined;
  let idsJson: Buffer | undefined;
  for (const c of chunks) {
    spans[c.name] = [c.at, c.at + c.bytes.length];
    if (c.noteIdsJson === undefined) continue;
    const rowIds = JSON.parse(c.noteIdsJson) as unknown[];
    if (!rowIds.every((id) => typeof id === 'string')) return undefined;
    const start = rowStarts(c.bytes, c.firstColumn, c.at);
    if (!start || start.length !== rowIds.length) return undefined;
    if (c.name === 'notes') {
      ids = rowIds; // noteid is the key: no id twice
      idsJson = Buffer.from(c.noteIdsJson, 'utf8');
    }
    const note = ids && ordinals(ids, rowIds);
    if (!note) return undefined;
    rows[c.name as RowSection] = { start, note };
  }
  if (!ids || !idsJson || !ascending(ids) || SECTIONS.some((s) => !spans[s]) || ROW_SECTIONS.some((s) => !rows[s]))
    return undefined;
  return { sqlite, ids, idsJson, spans, rows };
}

/**
 * Each row's card as its place in `ids`: one walk along both, as both are
 * ordered by noteid. Undefined when a row's card is not found in order (a
 * row of no card, or another order): then there is no index.
 */
function ordinals(ids: readonly string[], rowIds: readonly string[]): Uint32Array | undefined {
  const note = new Uint32Array(rowIds.length);
  let p = 0;
  for (let r = 0; r < rowIds.length; r++) {
    while (p < ids.length && ids[p] !== rowIds[r]) p++;
    if (p === ids.length) return undefined;
    note[r] = p;
  }
  return note;
}

/** Whether `a` sorts before `b` as SQLite orders TEXT (UTF-8 bytes); JS compares UTF-16 units, the same order for strings without characters from U+D800 up. */
export function utf8Before(a: string, b: string): boolean {
  return plain(a) && plain(b) ? a < b : Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;
}

const plain = (id: string) => !/[\ud800-\uffff]/.test(id);

/** Strictly ascending as SQLite orders TEXT. */
export function ascending(ids: readonly string[]): boolean {
  const simple = ids.every(plain);
  for (let i = 1; i < ids.length; i++)
    if (!(simple ? ids[i - 1] < ids[i] : utf8Before(ids[i - 1], ids[i]))) return false;
  return true;
}

/** How many of the (ascending) ids sort before `id`: where its rows would be. */
export function placeOf(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (utf8Before(ids[mid], id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where each row of a section's array starts, in the content (the array sits at `at`). */
function rowStarts(array: Buffer, firstColumn: string, at: number): Uint32Array | undefined {
  if (array.length === 2 && array[0] === 0x5b && array[1] === 0x5d) return new Uint32Array(0); // []
  if (!/^[^,:}\]]/.test(firstColumn)) return undefined;
  const head = Buffer.from(`[{${JSON.stringify(firstColumn)}:`);
  if (!array.subarray(0, head.length).equals(head)) return undefined;
  const between = Buffer.from(`},{${JSON.stringify(firstColumn)}:`);
  const starts = [at + 1];
  for (let i = array.indexOf(between, 1); i >= 0; i = array.indexOf(between, i + between.length))
    starts.push(at + i + 2);
  return Uint32Array.from(starts);
}

export function encodeIndex(ix: RowIndex): Buffer {
  const version = Buffer.from(ix.sqlite, 'utf8');
  const head = Uint32Array.of(ix.idsJson.length, ...SECTIONS.flatMap((s) => ix.spans[s]), version.length);
  const parts = [le(head), version, ix.idsJson];
  for (const s of ROW_SECTIONS)
    parts.push(le(Uint32Array.of(ix.rows[s].start.length)), le(ix.rows[s].start), le(ix.rows[s].note));
  return Buffer.concat(parts);
}

const bigEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 0;

/** The words' bytes, little-endian (a copy). */
function le(words: Uint32Array): Buffer {
  const b = Buffer.from(words.buffer.slice(words.byteOffset, words.byteOffset + words.byteLength));
  return bigEndian ? b.swap32() : b;
}

/** `n` words from little-endian bytes (copied, so aligned). */
function words(bytes: Buffer, n: number): Uint32Array {
  const out = new Uint32Array(n);
  const b = Buffer.from(out.buffer);
  bytes.copy(b, 0, 0, n * 4);
  if (bigEndian) b.swap32();
  return out;
}

/**
 * The index of a content of `json`'s bytes, checked against them: spans and
 * rows inside the content, in order, every row an object, every ordinal a
 * card. Throws a plain Error saying what does not hold.
 */
export function decodeIndex(buf: Buffer, json: Buffer): RowIndex {
  let at = 0;
  const u32 = () => {
    if (at + 4 > buf.length) throw new Error('the row index is cut short');
    const v = buf.readUInt32LE(at);
    at += 4;
    return v;
  };
  const idsLength = u32();
  const spans = {} as RowIndex['spans'];
  for (const s of SECTIONS) spans[s] = [u32(), u32()];
  const versionLength = u32();
  if (at + versionLength + idsLength > buf.length) throw new Error('the row index is cut short');
  const sqlite = buf.subarray(at, at + versionLength).toString('utf8');
  at += versionLength;
  const idsJson = buf.subarray(at, at + idsLength);
  at += idsLength;
  const ids = JSON.parse(idsJson.toString('utf8')) as unknown;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
    throw new Error('the row index has no card ids');
  if (!ascending(ids)) throw new Error("the row index's card ids are out of order");
  let prevEnd = 0;
  for (const s of SECTIONS) {
    const [start, end] = spans[s];
    if (start < prevEnd || end > json.length || end - start < 2 || json[start] !== 0x5b || json[end - 1] !== 0x5d)
      throw new Error(`the row index misplaces the ${s} section`);
    prevEnd = end;
  }
  const rows = {} as RowIndex['rows'];
  for (const s of ROW_SECTIONS) {
    const n = u32();
    if (at + n * 8 > buf.length) throw new Error('the row index is cut short');
    const start = words(buf.subarray(at), n);
    const note = words(buf.subarray(at + n * 4), n);
    at += n * 8;
    checkRows(s, json, spans[s], start, note, ids.length);
    rows[s] = { start, note };
  }
  if (rows.notes.start.length !== ids.length || rows.notes.note.some((o, r) => o !== r))
    throw new Error("the row index's card ids do not match its card rows");
  if (at !== buf.length) throw new Error('the row index has bytes past its end');
  return { sqlite, ids, idsJson, spans, rows };
}

/** Rows cover their section's array exactly: `[` row `,` row … `]`, each `{…}`; ordinals ascend. */
function checkRows(
  s: RowSection,
  json: Buffer,
  [begin, end]: [number, number],
  start: Uint32Array,
  note: Uint32Array,
  cards: number,
): void {
  const bad = () => new Error(`the row index does not fit the ${s} rows`);
  if (!start.length) {
    if (end - begin !== 2) throw bad();
    return;
  }
  if (start[0] !== begin + 1) throw bad();
  for (let r = 0; r < start.length; r++) {
    const last = r + 1 === start.length;
    const stop = last ? end - 1 : start[r + 1] - 1;
    if (
      stop <= start[r] ||
      json[start[r]] !== 0x7b ||
      json[stop - 1] !== 0x7d ||
      json[stop] !== (last ? 0x5d : 0x2c) ||
      note[r] >= cards
    )
      throw bad();
    if (r && note[r] < note[r - 1]) throw bad();
  }
}

/** The rows of card `k` in a section: [first, end). */
export function rowsOf(ix: RowIndex, s: RowSection, k: number): [number, number] {
  const { note } = ix.rows[s];
  const bound = (v: number) => {
    let lo = 0;
    let hi = note.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (note[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [bound(k), bound(k + 1)];
}

/** Row r of a section: its bytes' start and end in the content. */
export function rowSpan(ix: RowIndex, s: RowSection, r: number): [number, number] {
  const { start } = ix.rows[s];
  return [start[r], r + 1 < start.length ? start[r + 1] - 1 : ix.spans[s][1] - 1];
}
