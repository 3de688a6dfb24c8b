import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx } from '../../../ground/store/store';
import { drained, type WriteSteps } from '../../../ground/store/writeSteps';
import { cardIndexBody } from '../../../ground/search/cardIndexText';
import { anchorJson, type PdfBox } from '../anchorRects';

/**
 * Card rows by the thousand (a bundle's tree, an Anki package): one
 * multi-row statement per chunk instead of one statement per row, since each
 * statement sql.js runs (and the journal records) costs far more than a row.
 */

/** Rows per statement: 13 parameters a card row stays well under sql.js's parameter limit. */
const CHUNK_ROWS = 200;
/**
 * Card index rows per statement. FTS4 makes a segment of its pending terms whenever a statement opens a savepoint
 * (each multi-row statement does), and automerge=4 (cardRowsIndex.ts) then merges segments as they come: index rows
 * written 200 a statement, or beside each batch of other rows, were merged over and over. docs/PERFORMANCE.md.
 */
const INDEX_CHUNK_ROWS = 2000;

/**
 * `INSERT … VALUES (…),(…)` of `rows` (each the same width) in chunks. A
 * column that holds one value through a chunk (a set's id, a time, NULLs) is
 * bound once and named by number in every row: a 40,000-card import bound and
 * journaled some 2.7 million values, over a third of them repeats.
 */
export function insertMany(tx: WriteTx, head: string, rows: readonly SqlParam[][]): void {
  drained(insertManySteps(tx, head, rows));
}

/** insertMany, yielding after each statement (writeSteps.ts); each chunk's rows made by `toRow` as it goes in. */
export function* insertManySteps<R = SqlParam[]>(
  tx: WriteTx,
  head: string,
  items: readonly R[],
  toRow: (item: R) => SqlParam[] = (item) => item as SqlParam[],
  chunkRows = CHUNK_ROWS,
): WriteSteps<void> {
  for (let i = 0; i < items.length; i += chunkRows) {
    const chunk = items.slice(i, i + chunkRows).map(toRow);
    const width = chunk[0].length;
    const params: SqlParam[] = [];
    let mask = '';
    for (let col = 0; col < width; col++) {
      const v = chunk[0][col];
      const shared = !(v instanceof Uint8Array) && chunk.every((r) => r[col] === v);
      if (shared) params.push(v);
      mask += shared ? '1' : '0';
    }
    for (const r of chunk) for (let col = 0; col < width; col++) if (mask[col] === '0') params.push(r[col]);
    tx.run(valuesSql(head, mask, chunk.length), params);
    yield;
  }
}

/** Made statements' text by head, shared columns and rows (a bulk write runs the same few shapes a thousand times). */
const texts = new Map<string, string>();
const MAX_TEXTS = 64;

/**
 * `head VALUES (…),(…)` for `rows` rows: the columns `mask` marks '1' named by
 * their number among the shared values bound first, the others numbered on
 * in row order (insertManySteps binds them so).
 */
function valuesSql(head: string, mask: string, rows: number): string {
  const key = `${rows} ${mask} ${head}`;
  let sql = texts.get(key);
  if (sql) return sql;
  const names: string[] = [];
  let n = 0;
  for (const m of mask) names.push(m === '1' ? `?${++n}` : '');
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) tuples.push(`(${names.map((name) => name || `?${++n}`).join(',')})`);
  sql = `${head} VALUES ${tuples.join(',')}`;
  if (texts.size >= MAX_TEXTS) texts.delete(texts.keys().next().value!);
  texts.set(key, sql);
  return sql;
}

/** Runs `sql` with `$IN` replaced by a placeholder list, once per chunk of `ids`. */
function* forIds(tx: WriteTx, sql: string, ids: readonly string[]): WriteSteps<void> {
  for (let i = 0; i < ids.length; i += CHUNK_ROWS * 2) {
    const chunk = ids.slice(i, i + CHUNK_ROWS * 2);
    tx.run(sql.replace('$IN', `(${chunk.map(() => '?').join(',')})`), chunk);
    yield;
  }
}

/** One planned card: where it sits and what it says (texts, hashtags, pictures). */
export interface PlannedCardRow {
  noteid: string;
  topicid: string;
  parentId: string | null;
  position: number;
  title: string;
  colorIndex?: number | null;
  fillIndex?: number | null;
  source?: { bookmd5: string; page: number; rect: PdfBox; rects?: PdfBox[] } | null;
  kind?: 'card' | 'blank';
  now: string;
}

export interface PlannedText {
  noteid: string;
  idx: number;
  text: string;
  excerpt?: boolean;
}

export interface PlannedImage {
  contentId: string;
  noteid: string;
  idx: number;
  mime: string;
  data: string;
  bytes: Uint8Array;
}

/** A card's row in the card index: its search body, built by the caller from what it wrote. */
export interface PlannedIndexRow {
  noteid: string;
  topicid: string;
  text: string;
}

/**
 * A batch of card rows to insert. `index` left out: the caller writes the batches' index rows together after them
 * (insertIndexRowsSteps), as a bulk write made of many batches should.
 */
export interface CardRowsBatch {
  cards: readonly PlannedCardRow[];
  texts: readonly PlannedText[];
  hashtags?: readonly { noteid: string; path: string }[];
  images?: readonly PlannedImage[];
  index?: readonly PlannedIndexRow[];
}

/** Inserts a planned batch: cards, texts, hashtags (a repeat ignored), pictures and index rows. */
export function insertCardRows(tx: WriteTx, b: CardRowsBatch): void {
  drained(insertCardRowsSteps(tx, b));
}

/** insertCardRows, yielding after each statement. */
export function* insertCardRowsSteps(tx: WriteTx, b: CardRowsBatch): WriteSteps<void> {
  yield* insertManySteps(
    tx,
    'INSERT INTO notes(noteid, topicid, parent_id, position, title, color_index, fill_index, source_bookmd5, source_page, source_rect, kind, created_at, modified_at)',
    b.cards,
    (c) => [
      c.noteid,
      c.topicid,
      c.parentId,
      c.position,
      c.title,
      c.colorIndex ?? null,
      c.fillIndex ?? null,
      c.source?.bookmd5 ?? null,
      c.source?.page ?? null,
      c.source ? anchorJson(c.source.rect, c.source.rects) : null,
      c.kind ?? 'card',
      c.now,
      c.now,
    ],
  );
  yield* insertManySteps(tx, 'INSERT INTO note_texts(noteid, idx, text, excerpt, kind)', b.texts, (t) => [
    t.noteid,
    t.idx,
    t.text,
    t.excerpt ? 1 : 0,
    t.excerpt ? 'excerpt' : 'text',
  ]);
  yield* insertManySteps(tx, 'INSERT OR IGNORE INTO note_hashtags(noteid, path)', b.hashtags ?? [], (h) => [
    h.noteid,
    h.path,
  ]);
  yield* insertManySteps(
    tx,
    'INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data, blob)',
    b.images ?? [],
    (p) => [p.contentId, p.noteid, p.idx, 'image', p.mime, p.data, p.bytes],
  );
  yield* insertIndexRowsSteps(tx, b.index ?? []);
}

/** Card index rows, INDEX_CHUNK_ROWS a statement. */
export function* insertIndexRowsSteps(tx: WriteTx, rows: readonly PlannedIndexRow[]): WriteSteps<void> {
  yield* insertManySteps(
    tx,
    'INSERT INTO notes_fts(noteid, topicid, body)',
    rows,
    (x) => [x.noteid, x.topicid, cardIndexBody(x.text)],
    INDEX_CHUNK_ROWS,
  );
}

/** New titles (`[noteid, title]`), stamped modified at `now`, in one statement per chunk. */
export function updateTitles(tx: WriteTx, titles: readonly [string, string][], now: string): void {
  drained(updateTitlesSteps(tx, titles, now));
}

/** updateTitles, yielding after each statement. */
export function* updateTitlesSteps(tx: WriteTx, titles: readonly [string, string][], now: string): WriteSteps<void> {
  for (let i = 0; i < titles.length; i += CHUNK_ROWS) {
    const chunk = titles.slice(i, i + CHUNK_ROWS);
    tx.run(
      `WITH v(k, c0, c1) AS (VALUES ${chunk.map(() => '(?,?,?)').join(',')}) UPDATE notes SET title = (SELECT c0 FROM v WHERE v.k = notes.noteid), modified_at = (SELECT c1 FROM v WHERE v.k = notes.noteid) WHERE noteid IN (SELECT k FROM v)`,
      chunk.flatMap(([id, title]) => [id, title, now]),
    );
    yield;
  }
}

/** What of a re-imported card's content goes before it is written again. */
export interface ClearedContent {
  body?: boolean;
  hashtags?: boolean;
  /** Pictures an Anki import made (`data.ankiMedia`); others stay. */
  ankiImages?: boolean;
  index?: boolean;
}

/** Deletes the chosen content rows of `ids`, so a re-import can insert them afresh. */
export function clearCardContent(tx: WriteTx, ids: readonly string[], what: ClearedContent): void {
  drained(clearCardContentSteps(tx, ids, what));
}

/** clearCardContent, yielding after each statement. */
export function* clearCardContentSteps(tx: WriteTx, ids: readonly string[], what: ClearedContent): WriteSteps<void> {
  if (what.body) yield* forIds(tx, 'DELETE FROM note_texts WHERE idx = 0 AND noteid IN $IN', ids);
  if (what.hashtags) yield* forIds(tx, 'DELETE FROM note_hashtags WHERE noteid IN $IN', ids);
  if (what.ankiImages)
    yield* forIds(
      tx,
      `DELETE FROM note_parts WHERE kind = 'image' AND json_extract(data, '$.ankiMedia') IS NOT NULL AND noteid IN $IN`,
      ids,
    );
  if (what.index)
    yield* forIds(
      tx,
      'DELETE FROM notes_fts WHERE docid IN (SELECT docid FROM notes_fts_content WHERE c0noteid IN $IN)',
      ids,
    );
}
