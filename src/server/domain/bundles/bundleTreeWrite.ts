// A submitted bundle's planned cards written as rows (bundleSubmit.ts decides what and when).
import { nextChildPosition } from '../cards/noteRows';
import { anchorJson } from '../cards/anchorRects';
import { cardIndexBody } from '../../ground/search/cardIndexText';
import type { SqlParam } from '../../ground/store/journal';
import type { WriteTx } from '../../ground/store/store';
import type { ImportPlan } from './importPlan';

/** Rows per multi-row INSERT: 14 parameters a row stays under SQLite's 999-parameter limit. */
const ROWS_PER_INSERT = 64;

function insertRows(tx: WriteTx, head: string, width: number, rows: SqlParam[][]): void {
  const one = `(${Array.from({ length: width }, () => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    tx.run(`${head} VALUES ${chunk.map(() => one).join(', ')}`, chunk.flat());
  }
}

/**
 * Writes the planned cards: the same rows insertNote writes (card, texts,
 * search index: title and texts joined, as reindexNote builds it; new cards
 * have no hashtags), in multi-row statements, since a 2,000-card import
 * would otherwise run some 14,000 statements.
 */
export function writeTree(
  tx: WriteTx,
  p: ImportPlan,
  topicid: string,
  parentId: string,
  rootPosition: number | undefined,
  now: string,
): void {
  const nextPos = new Map<string, number>();
  const notes: SqlParam[][] = [];
  const texts: SqlParam[][] = [];
  const fts: SqlParam[][] = [];
  for (const c of p.cards) {
    const parent = c.parent ?? parentId;
    let position: number;
    if (c.parent === null) position = rootPosition ?? nextChildPosition(tx, parent);
    else {
      position = nextPos.get(parent) ?? 0;
      nextPos.set(parent, position + 1);
    }
    notes.push([
      c.noteid,
      topicid,
      parent,
      position,
      c.title,
      c.colorIndex,
      c.fillIndex,
      c.source?.bookmd5 ?? null,
      c.source?.page ?? null,
      c.source ? anchorJson(c.source.rect, c.source.rects) : null,
      c.kind === 'blank' ? 'blank' : 'card',
      now,
      now,
    ]);
    const own = c.texts.filter((t) => t.text !== '');
    own.forEach((t, i) => texts.push([c.noteid, i, t.text, t.excerpt ? 1 : 0, t.excerpt ? 'excerpt' : 'text']));
    fts.push([c.noteid, topicid, cardIndexBody([c.title, ...own.map((t) => t.text)].join('\n'))]);
  }
  insertRows(
    tx,
    'INSERT INTO notes(noteid, topicid, parent_id, position, title, color_index, fill_index, source_bookmd5, source_page, source_rect, kind, created_at, modified_at)',
    13,
    notes,
  );
  insertRows(tx, 'INSERT INTO note_texts(noteid, idx, text, excerpt, kind)', 5, texts);
  insertRows(tx, 'INSERT INTO notes_fts(noteid, topicid, body)', 3, fts);
}
