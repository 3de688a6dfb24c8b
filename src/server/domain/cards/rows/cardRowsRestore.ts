import type { Row, WriteTx } from '../../../ground/store/store';
import { columnsOf, ofSetWhere, setSize, toJson, type SnapshotContent } from '../snapshotContent';
import { purgeNotes } from './cardRowsEdit';

/** A snapshot written back into its set (snapshotWriteBack.ts decides which cards). */

/** Inserts rows in one statement: SQLite unpacks the JSON array itself (json_each), so 10k cards are one parameter. */
function insertJsonRows(tx: WriteTx, table: string, rows: readonly Row[]): void {
  if (!rows.length) return;
  const cols = columnsOf(tx, table).filter((c) => c.name in rows[0]);
  const values = cols.map((c) => {
    const path = `'$."${c.name}"'`;
    return c.blob ? `unhex(json_extract(value, '$."${c.name}"."$hex"'))` : `json_extract(value, ${path})`;
  });
  tx.run(
    `INSERT INTO ${table}(${cols.map((c) => `"${c.name}"`).join(', ')}) SELECT ${values.join(', ')} FROM json_each(?)`,
    [toJson(rows)],
  );
}

/**
 * Drops the `gone` and `full` cards for good and writes `full` back whole
 * (row, texts, tags, parts, `index` rows); `rowOnly` cards get only their
 * row back, keeping their texts and search entry.
 */
export function rewriteSnapshotCards(
  tx: WriteTx,
  snap: SnapshotContent,
  cards: { gone: readonly string[]; full: readonly string[]; rowOnly: readonly string[] },
  index: readonly Row[],
): void {
  const { gone, full, rowOnly } = cards;
  purgeNotes(tx, [...gone, ...full]);
  for (let i = 0; i < rowOnly.length; i += 500) {
    const chunk = rowOnly.slice(i, i + 500);
    tx.run(`DELETE FROM notes WHERE noteid IN (${chunk.map(() => '?').join(',')})`, chunk);
  }
  const rewrite = new Set([...full, ...rowOnly]);
  const fullSet = new Set(full);
  insertJsonRows(tx, 'notes', snap.notes.filter((n) => rewrite.has(n.noteid)) as unknown as Row[]);
  const ofFull = (rows: readonly Row[]) => rows.filter((r) => fullSet.has(String(r.noteid)));
  insertJsonRows(tx, 'note_texts', ofFull(snap.texts));
  insertJsonRows(tx, 'note_hashtags', ofFull(snap.hashtags));
  insertJsonRows(tx, 'note_parts', ofFull(snap.parts));
  insertJsonRows(tx, 'notes_fts', index);
}

/** Makes the set's links `wantLinks`: what is there now (after a purge) against what is wanted. */
export function rewriteSetLinks(tx: WriteTx, topicid: string, wantLinks: readonly Row[]): void {
  const nowLinks = tx.all<Row>(
    `SELECT * FROM note_links WHERE ${ofSetWhere(tx, 'note_links', ['noteid', 'target_id'], setSize(tx, topicid))}`,
    [topicid],
  );
  const wantKeys = new Set(wantLinks.map(toJson));
  const nowKeys = new Set(nowLinks.map(toJson));
  for (const l of nowLinks)
    if (!wantKeys.has(toJson(l)))
      tx.run('DELETE FROM note_links WHERE noteid = ? AND target_id = ?', [l.noteid, l.target_id]);
  insertJsonRows(
    tx,
    'note_links',
    wantLinks.filter((l) => !nowKeys.has(toJson(l))),
  );
}
