import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx } from '../../../ground/store/store';
import { deleteIndexRows } from './cardRowsInsert';

/**
 * Changes to existing card rows: fields, pictures, and removal for good.
 * The caller reindexes the card (reindexNote) and records the operation.
 */

/** `(?,?,?)` for an IN list; `(NULL)` when empty so the SQL stays valid. */
export const inList = (n: number) => (n ? `(${Array.from({ length: n }, () => '?').join(',')})` : '(NULL)');

export function setTitle(tx: WriteTx, noteid: string, title: string): void {
  tx.run('UPDATE notes SET title = ? WHERE noteid = ?', [title, noteid]);
}

/** Replaces the body (text 0) with plain text; an empty body leaves none. */
export function setBodyText(tx: WriteTx, noteid: string, body: string): void {
  tx.run('DELETE FROM note_texts WHERE noteid = ? AND idx = 0', [noteid]);
  if (body)
    tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 0, ?, 0, 'text')`, [noteid, body]);
}

export function deleteParts(tx: WriteTx, contentIds: readonly string[]): void {
  for (const id of contentIds) tx.run('DELETE FROM note_parts WHERE content_id = ?', [id]);
}

export function touchNote(tx: WriteTx, noteid: string, now: string): void {
  tx.run('UPDATE notes SET modified_at = ? WHERE noteid = ?', [now, noteid]);
}

/** Stamps several cards modified at `now` in one statement (an id may repeat). */
export function touchNotes(tx: WriteTx, noteIds: readonly string[], now: string): void {
  tx.run(`UPDATE notes SET modified_at = ? WHERE noteid IN ${inList(noteIds.length)}`, [now, ...noteIds]);
}

/** Sets a card's mind-map flag (folded, sub-map root), stamped modified at `now`. */
export function setCardFlag(tx: WriteTx, noteid: string, flag: 'folded' | 'sub_map', on: boolean, now: string): void {
  const sql =
    flag === 'folded'
      ? 'UPDATE notes SET folded = ?, modified_at = ? WHERE noteid = ?'
      : 'UPDATE notes SET sub_map = ?, modified_at = ? WHERE noteid = ?';
  tx.run(sql, [on ? 1 : 0, now, noteid]);
}

/**
 * Sets the given palette indexes of `noteIds` in one statement (the journal keeps one short record,
 * not 200); an index left undefined stays each card's own.
 */
export function setCardColors(
  tx: WriteTx,
  noteIds: readonly string[],
  patch: { colorIndex?: number | null; fillIndex?: number | null },
  now: string,
): void {
  const set = [
    ...(patch.colorIndex === undefined ? [] : ['color_index = ?']),
    ...(patch.fillIndex === undefined ? [] : ['fill_index = ?']),
  ];
  const values = [
    ...(patch.colorIndex === undefined ? [] : [patch.colorIndex]),
    ...(patch.fillIndex === undefined ? [] : [patch.fillIndex]),
  ];
  tx.run(`UPDATE notes SET ${set.join(', ')}, modified_at = ? WHERE noteid IN ${inList(noteIds.length)}`, [
    ...values,
    now,
    ...noteIds,
  ]);
}

/** The link rows between `a` and `b`, both ways (idempotent). */
export function insertLinks(tx: WriteTx, a: string, b: string, now: string): void {
  tx.run('INSERT OR IGNORE INTO note_links(noteid, target_id, created_at) VALUES (?, ?, ?)', [a, b, now]);
  tx.run('INSERT OR IGNORE INTO note_links(noteid, target_id, created_at) VALUES (?, ?, ?)', [b, a, now]);
}

export function deleteLinks(tx: WriteTx, a: string, b: string): void {
  tx.run('DELETE FROM note_links WHERE (noteid = ? AND target_id = ?) OR (noteid = ? AND target_id = ?)', [a, b, b, a]);
}

/** Puts a card under `parentId` at `position`. */
export function moveCard(tx: WriteTx, noteid: string, parentId: string, position: number, now: string): void {
  tx.run('UPDATE notes SET parent_id = ?, position = ?, modified_at = ? WHERE noteid = ?', [
    parentId,
    position,
    now,
    noteid,
  ]);
}

/** A set's cards anchored in `bookmd5` lose their anchor (the document left the set). */
export function dropSetAnchors(tx: WriteTx, topicid: string, bookmd5: string, now: string): void {
  tx.run(
    'UPDATE notes SET source_bookmd5 = NULL, source_page = NULL, source_rect = NULL, modified_at = ? WHERE topicid = ? AND source_bookmd5 = ?',
    [now, topicid, bookmd5],
  );
}

/** Hides a set's cards (a deleted set's, kept for their highlights) and drops them from search. */
export function hideSetCards(tx: WriteTx, topicid: string): void {
  tx.run('UPDATE notes SET hidden = 1 WHERE topicid = ? AND hidden = 0', [topicid]);
  // Found by notes_topic: a card never changes set, and the index's own topicid column has no index (schema 18).
  tx.run(deleteIndexRows('c0noteid IN (SELECT noteid FROM notes WHERE topicid = ?)'), [topicid]);
}

/** Removes cards for good: rows, texts, tags, parts, links and index. */
export function purgeNotes(tx: WriteTx, noteIds: readonly string[]): void {
  for (let i = 0; i < noteIds.length; i += 500) {
    const ids = noteIds.slice(i, i + 500) as SqlParam[];
    const list = inList(ids.length);
    for (const table of ['note_texts', 'note_hashtags', 'note_parts'])
      tx.run(`DELETE FROM ${table} WHERE noteid IN ${list}`, ids);
    tx.run(deleteIndexRows(`c0noteid IN ${list}`), ids);
    tx.run(`DELETE FROM note_links WHERE noteid IN ${list} OR target_id IN ${list}`, [...ids, ...ids]);
    tx.run(`DELETE FROM notes WHERE noteid IN ${list}`, ids);
  }
}
