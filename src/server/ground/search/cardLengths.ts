import type { CardIndexChange, Store } from '../store/store';
import { rowsByDocid } from './indexRows';

/**
 * Every card index row's column lengths in tokens (FTS4's `%_docsize`),
 * kept in memory so a search asks FTS4 for matchinfo without 'l': FTS4
 * reads it with one `%_docsize` lookup per row, ~2 µs, which was half the
 * window SQL of a word in 1,000 cards (叶绿体: 4.1 → 2.0 ms at 100k cards).
 * cardWindow.ts puts the lengths back, so the rank is unchanged.
 *
 * Built in the background at the first search (a chunk per turn of the
 * event loop, ~0.35 s at 100k cards, 1.2 MB) and kept exact from the rows
 * each acknowledged batch names, as search/commonTerms.ts keeps postings;
 * a batch too large to name drops them until the next search builds them.
 */

/** notes_fts(noteid, topicid, body). */
const COLUMNS = 3;
const BUILD_CHUNK = 2000;

export class CardLengths {
  /** COLUMNS values per docid; -1: not known (a row written after the build, or none). */
  private lengths: Int32Array | undefined;
  private building: { dirty: Set<number> } | undefined;

  constructor(private readonly store: Pick<Store, 'all' | 'onCommit'>) {
    store.onCommit((_revision, _changes, cardIndex) => this.committed(cardIndex));
  }

  /**
   * The row's lengths, written into `out` at `at` (matchinfo's 'l'). A row
   * not known yet (written by a batch not acknowledged yet) is looked up.
   */
  read(docid: number, out: Uint32Array, at: number): void {
    const l = this.lengths;
    const from = docid * COLUMNS;
    if (l && from + COLUMNS <= l.length && l[from] >= 0) {
      for (let i = 0; i < COLUMNS; i++) out[at + i] = l[from + i];
      return;
    }
    const one = new Int32Array(COLUMNS);
    const row = this.store.all<{ size: Uint8Array }>('SELECT size FROM notes_fts_docsize WHERE docid = ?', [docid])[0];
    if (row) decodeSizes(row.size, one, 0);
    out.set(one, at);
  }

  /** Whether the lengths are in memory; starts building them when not. */
  get ready(): boolean {
    if (!this.lengths) this.build();
    return this.lengths !== undefined;
  }

  private build(): void {
    if (this.building) return;
    const job = { dirty: new Set<number>() };
    this.building = job;
    let lengths: Int32Array = new Int32Array(0);
    let above = -1;
    const step = () => {
      if (this.building !== job) return;
      try {
        const rows = this.store.all<{ docid: number; size: Uint8Array }>(
          'SELECT docid, size FROM notes_fts_docsize WHERE docid > ? ORDER BY docid LIMIT ?',
          [above, BUILD_CHUNK],
        );
        if (rows.length) lengths = withRoom(lengths, rows[rows.length - 1].docid);
        for (const r of rows) decodeSizes(r.size, lengths, r.docid * COLUMNS);
        if (rows.length === BUILD_CHUNK) {
          above = rows[rows.length - 1].docid;
          setImmediate(step);
          return;
        }
        this.lengths = lengths;
        this.building = undefined;
        this.reread(job.dirty);
      } catch {
        // The store closed (or the index is being rebuilt): the next search asks again.
        this.building = undefined;
        this.lengths = undefined;
      }
    };
    setImmediate(step);
  }

  private committed(cardIndex: Readonly<CardIndexChange>): void {
    if (cardIndex.all) {
      this.lengths = undefined;
      this.building = undefined;
      return;
    }
    for (const d of cardIndex.docids) this.building?.dirty.add(d);
    if (this.lengths && cardIndex.docids.length) this.reread(cardIndex.docids);
  }

  /** The given rows' lengths as they are now (-1 for a deleted row). */
  private reread(docids: Iterable<number>): void {
    const list = [...docids];
    if (!list.length) return;
    const l = (this.lengths = withRoom(this.lengths!, Math.max(...list)));
    for (const d of list) l.fill(-1, d * COLUMNS, d * COLUMNS + COLUMNS);
    for (const r of rowsByDocid<{ docid: number; size: Uint8Array }>(
      this.store,
      'docid, size FROM notes_fts_docsize',
      list,
    ))
      decodeSizes(r.size, l, r.docid * COLUMNS);
  }
}

/** The array, grown (unknown rows -1) to hold `docid`. */
function withRoom(l: Int32Array, docid: number): Int32Array {
  const need = (docid + 1) * COLUMNS;
  if (need <= l.length) return l;
  const grown = new Int32Array(Math.max(need, Math.ceil(l.length * 1.5))).fill(-1);
  grown.set(l);
  return grown;
}

/** A `%_docsize` blob: one varint per column (SQLite's: 7 bits a byte, low first). */
function decodeSizes(blob: Uint8Array, out: Int32Array, at: number): void {
  let i = 0;
  for (let col = 0; col < COLUMNS; col++) {
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      b = blob[i++] ?? 0;
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    out[at + col] = v;
  }
}
