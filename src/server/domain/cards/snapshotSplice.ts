import type { Db } from './noteRows';
import { columnsOf, type ContentData, frameContent, readSetSections, sqliteVersion } from './snapshotContent';
import { ascending, ROW_SECTIONS, type RowIndex, type RowSection, rowSpan, utf8Before } from './snapshotIndex';
import type { SnapshotView } from './snapshotView';

/**
 * The set's content now, as readSnapshot would give it, built from the
 * snapshot a restore is about to write back instead of read from SQLite:
 * a restore's protection snapshot otherwise renders all 10k cards again
 * (the larger part of a restore). The cards that can differ from the
 * snapshot (`candidates`: stamped since, created or deleted, cardEdits.ts)
 * take the store's rows (`now`, just read for comparing); every other card
 * keeps the snapshot's row bytes, which are the store's rows by the same
 * card_edits invariant the restore itself relies on. Links and documents are
 * read from the store.
 *
 * The bytes are those SQLite would render only if the snapshot's rows were
 * rendered the same way: same SQLite version, same columns in the same
 * order. Otherwise, or when anything does not add up, undefined: the caller
 * reads the whole set as before.
 */
export function spliceContent(
  db: Db,
  topicid: string,
  base: SnapshotView,
  candidates: ReadonlySet<string>,
  now: ContentData | undefined,
  idsNow: ReadonlySet<string>,
): ContentData | undefined {
  const old = base.stored;
  if (!old || (now && !now.index) || old.index.sqlite !== sqliteVersion(db)) return undefined;
  for (const s of ROW_SECTIONS) {
    const had = base.columns(s);
    const cols = columnsOf(db, TABLE[s]).map((c) => c.name);
    if (had.length && (had.length !== cols.length || had.some((c, i) => c !== cols[i]))) return undefined;
  }
  const fresh = now?.index && { bytes: now.bytes, index: now.index };
  const order = mergeIds(old.index.ids, candidates, fresh?.index.ids ?? []);
  if (!order || order.ids.length !== idsNow.size || !order.ids.every((id) => idsNow.has(id))) return undefined;

  const arrays: Buffer[] = [];
  const rows: Array<{ start: number[]; note: Uint32Array }> = [];
  for (const s of ROW_SECTIONS) {
    const r = spliceSection(s, order.from, old, fresh);
    arrays.push(r.bytes);
    rows.push(r);
  }
  const shared = readSetSections(db, topicid, ['links', 'documents']);
  arrays.push(shared.get('links')!, shared.get('documents')!);
  const { bytes, at } = frameContent(arrays);
  const index: RowIndex = {
    sqlite: old.index.sqlite,
    ids: order.ids,
    idsJson: Buffer.from(JSON.stringify(order.ids), 'utf8'),
    spans: { notes: span(0), texts: span(1), hashtags: span(2), parts: span(3), links: span(4), documents: span(5) },
    rows: { notes: rowsAt(0), texts: rowsAt(1), hashtags: rowsAt(2), parts: rowsAt(3) },
  };
  return { bytes, index };

  function span(i: number): [number, number] {
    return [at[i], at[i] + arrays[i].length];
  }
  function rowsAt(i: number) {
    return { start: Uint32Array.from(rows[i].start, (x) => x + at[i]), note: rows[i].note };
  }
}

const TABLE = { notes: 'notes', texts: 'note_texts', hashtags: 'note_hashtags', parts: 'note_parts' } as const;

type Source = { bytes: Buffer; index: RowIndex };
/** Per card of the result: 0 = the snapshot's rows, 1 = the store's, and the card's ordinal there. */
type From = Array<[source: 0 | 1, ordinal: number]>;

/** The set's ids now in noteid order (as SQLite orders them): the snapshot's cards that are no candidates, and the candidates read now. */
function mergeIds(
  had: readonly string[],
  candidates: ReadonlySet<string>,
  read: readonly string[],
): { ids: string[]; from: From } | undefined {
  const ids: string[] = [];
  const from: From = [];
  let j = 0;
  const take = (id: string, f: [0 | 1, number]) => {
    ids.push(id);
    from.push(f);
  };
  for (let i = 0; i < had.length; i++) {
    if (candidates.has(had[i])) continue;
    while (j < read.length && utf8Before(read[j], had[i])) take(read[j], [1, j++]);
    take(had[i], [0, i]);
  }
  while (j < read.length) take(read[j], [1, j++]);
  return ascending(ids) ? { ids, from } : undefined;
}

/**
 * One row section of the result: each card's rows from its source, in the
 * result's card order. Rows that follow each other in their source are
 * copied as one piece (with the comma between them).
 */
function spliceSection(
  s: RowSection,
  from: From,
  old: Source,
  fresh: Source | undefined,
): { bytes: Buffer; start: number[]; note: Uint32Array } {
  const sources = [old, fresh];
  const next = [0, 0];
  const pieces: Array<[Buffer, number, number]> = [];
  const start: number[] = [];
  const note: number[] = [];
  let length = 1; // '['
  from.forEach(([which, k], card) => {
    const src = sources[which]!;
    const { note: of } = src.index.rows[s];
    let r = next[which];
    while (r < of.length && of[r] < k) r++;
    for (; r < of.length && of[r] === k; r++) {
      const [a, b] = rowSpan(src.index, s, r);
      const first = start.length === 0;
      const last = pieces[pieces.length - 1];
      if (last && last[0] === src.bytes && last[2] + 1 === a)
        last[2] = b; // the source's comma comes along
      else pieces.push(...(first ? [] : [COMMA_PIECE]), [src.bytes, a, b]);
      if (!first) length += 1;
      start.push(length);
      length += b - a;
      note.push(card);
    }
    next[which] = r;
  });
  const bytes = Buffer.concat([OPEN, ...pieces.map(([buf, a, b]) => buf.subarray(a, b)), CLOSE]);
  return { bytes, start, note: Uint32Array.from(note) };
}

const OPEN = Buffer.from('[');
const COMMA_PIECE: [Buffer, number, number] = [Buffer.from(','), 0, 1];
const CLOSE = Buffer.from(']');
