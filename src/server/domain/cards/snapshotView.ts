import type { Row } from '../../ground/store/store';
import type { NoteRow } from './noteRows';
import { parseContent, pickCards, type SnapshotContent, unhexParts } from './snapshotContent';
import { SnapshotFileError, type StoredContent } from './snapshotFiles';
import { placeOf, type RowIndex, type RowSection, rowsOf, rowSpan } from './snapshotIndex';

/**
 * A snapshot's content as a restore reads it. A restore compares only the
 * cards stamped since the snapshot (cardEdits.ts), so with a row index
 * (SBSNAP03) only those cards' rows are decoded and parsed: the whole 8.8 MB
 * of a 10k-card set is never turned into a string. Without one (SBSNAP01/02
 * files, contents still in library.db) the JSON is parsed whole, once, on
 * first use, as before.
 */
export interface SnapshotView {
  /** Every card id of the snapshot. */
  readonly noteIds: readonly string[];
  /** A row section's columns: its first row's keys ([] when it has no rows). */
  columns(section: RowSection): string[];
  /** The rows of these cards (notes, texts, hashtags, parts), with every link and document. */
  cards(ids: ReadonlySet<string>): SnapshotContent;
  /** All of it. */
  full(): SnapshotContent;
  /** The JSON and its row index, when the file has one (snapshotSplice.ts reuses its rows). */
  readonly stored?: { bytes: Buffer; index: RowIndex };
}

export const viewOf = (c: StoredContent | string): SnapshotView =>
  typeof c !== 'string' && c.index
    ? new IndexedView(c.bytes, c.index)
    : new ParsedView(typeof c === 'string' ? c : c.bytes);

class ParsedView implements SnapshotView {
  readonly stored = undefined;
  private content: SnapshotContent | undefined;
  private ids: string[] | undefined;

  constructor(private readonly json: string | Buffer) {}

  full(): SnapshotContent {
    return (this.content ??= parseContent(typeof this.json === 'string' ? this.json : this.json.toString('utf8')));
  }

  get noteIds(): readonly string[] {
    return (this.ids ??= this.full().notes.map((n) => n.noteid));
  }

  columns(section: RowSection): string[] {
    const rows = this.full()[section];
    return rows.length ? Object.keys(rows[0]) : [];
  }

  cards(ids: ReadonlySet<string>): SnapshotContent {
    return pickCards(this.full(), ids);
  }
}

const corrupt = (what: string) =>
  new SnapshotFileError('corrupt', `the row index does not match the content (${what})`);

class IndexedView implements SnapshotView {
  private ordinal: Map<string, number> | undefined;
  private readonly cols = new Map<RowSection, string[]>();
  private whole: SnapshotContent | undefined;
  private shared: Pick<SnapshotContent, 'links' | 'documents'> | undefined;

  constructor(
    private readonly json: Buffer,
    private readonly ix: RowIndex,
  ) {}

  get noteIds(): readonly string[] {
    return this.ix.ids;
  }

  get stored() {
    return { bytes: this.json, index: this.ix };
  }

  columns(section: RowSection): string[] {
    let cols = this.cols.get(section);
    if (!cols) {
      cols = this.ix.rows[section].start.length ? Object.keys(this.parseRows(section, [0])[0]) : [];
      this.cols.set(section, cols);
    }
    return cols;
  }

  cards(ids: ReadonlySet<string>): SnapshotContent {
    const want = new Set<number>();
    /** Where cards the snapshot lacks would sit: the rows on each side are checked too (snapshotSplice.ts puts their rows there). */
    const gaps = new Set<number>();
    // A few cards (a restore after some edits) are looked up along the ids; many through a Map built once.
    if (ids.size > 16) this.ordinal ??= new Map(this.ix.ids.map((id, i) => [id, i]));
    for (const id of ids) {
      const o = this.ordinal ? this.ordinal.get(id) : this.ix.ids.indexOf(id);
      if (o !== undefined && o >= 0) want.add(o);
      else gaps.add(placeOf(this.ix.ids, id));
    }
    const of = (s: RowSection) => {
      const { note } = this.ix.rows[s];
      // A card's rows and the row on each side: a neighbour of another card shows the card has no rows beyond these.
      const rows = new Set<number>();
      const around = (first: number, end: number) => {
        for (let r = Math.max(0, first - 1); r <= Math.min(end, note.length - 1); r++) rows.add(r);
      };
      for (const k of want) around(...rowsOf(this.ix, s, k));
      for (const k of gaps) {
        const [first] = rowsOf(this.ix, s, k);
        around(first, first);
      }
      const sorted = [...rows].sort((a, b) => a - b);
      const parsed = this.parseRows(s, sorted);
      return parsed.filter((_, i) => want.has(note[sorted[i]]));
    };
    this.shared ??= { links: this.parseSpan('links'), documents: this.parseSpan('documents') };
    return {
      format: 1,
      notes: of('notes') as unknown as NoteRow[],
      texts: of('texts'),
      hashtags: of('hashtags'),
      parts: of('parts'),
      ...this.shared,
    };
  }

  full(): SnapshotContent {
    return (this.whole ??= parseContent(this.json.toString('utf8')));
  }

  /**
   * These rows of a section, decoded and parsed in one go; each must be one
   * object of the card its index entry names. Rows are ordered by noteid, as
   * the ids are (decodeIndex checks both orders), so a card's rows lie between
   * its neighbours' and checking those neighbours bounds them.
   */
  private parseRows(s: RowSection, rows: readonly number[]): Row[] {
    if (!rows.length) return [];
    const pieces: Buffer[] = [];
    for (const r of rows) {
      const [a, b] = rowSpan(this.ix, s, r);
      pieces.push(pieces.length ? COMMA : OPEN, this.json.subarray(a, b));
    }
    pieces.push(CLOSE);
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(pieces).toString('utf8'));
    } catch {
      throw corrupt(`${s} rows do not parse`);
    }
    if (!Array.isArray(parsed) || parsed.length !== rows.length) throw corrupt(`${s} rows are not one object each`);
    const { note } = this.ix.rows[s];
    parsed.forEach((row: unknown, i) => {
      if (!row || typeof row !== 'object' || String((row as Row).noteid) !== this.ix.ids[note[rows[i]]])
        throw corrupt(`a ${s} row belongs to another card`);
    });
    if (s === 'parts') unhexParts(parsed as Row[]);
    return parsed as Row[];
  }

  private parseSpan(s: 'links' | 'documents'): Row[] {
    const [a, b] = this.ix.spans[s];
    let rows: unknown;
    try {
      rows = JSON.parse(this.json.subarray(a, b).toString('utf8'));
    } catch {
      throw corrupt(`the ${s} do not parse`);
    }
    if (!Array.isArray(rows)) throw corrupt(`the ${s} are not a list`);
    return rows as Row[];
  }
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
