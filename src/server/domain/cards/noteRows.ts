import { BridgeError, invalidInput, notFound } from '../../errors';
import type { Actor } from '../../actor';
import type { WriteTx } from '../../ground/store/store';
export { nextChildPosition, insertNote, reindexNote, deleteIndexRows, type NewNote } from './rows/cardRowsInsert';
import { inList } from './rows/cardRowsEdit';
export { inList, purgeNotes } from './rows/cardRowsEdit';

/**
 * The card rows every card module shares: reading a card (visible ones only)
 * and recording a write batch in the operation log; inserting and purging
 * cards are rows/'s, passed on here. Everything here runs inside the caller's
 * transaction (or on a plain reader), so a batch commits as one unit.
 */

/** A reader: the store itself or a write transaction. */
export type Db = Pick<WriteTx, 'get' | 'all'>;

export interface NoteRow {
  noteid: string;
  topicid: string;
  parent_id: string | null;
  position: number;
  title: string;
  color_index: number | null;
  fill_index: number | null;
  folded: number;
  hidden: number;
  sub_map: number;
  source_bookmd5: string | null;
  source_page: number | null;
  source_rect: string | null;
  reference_of: string | null;
  kind: string;
  created_at: string;
  modified_at: string;
}

export interface NoteTextRow {
  noteid: string;
  idx: number;
  text: string;
  excerpt: number;
  kind: string;
}

/** A visible card, or 404 NOTE_NOT_FOUND. */
export function getNote(db: Db, noteid: string): NoteRow {
  const n = db.get<NoteRow>('SELECT * FROM notes WHERE noteid = ? AND hidden = 0', [noteid]);
  if (!n)
    throw notFound('NOTE_NOT_FOUND', `No card ${noteid}. GET /study-sets/{id}/tree lists a set's cards.`, { noteid });
  return n;
}

/**
 * Visible cards in the order asked; any unknown id → 404 NOTE_NOT_FOUND naming all of them. Duplicates are dropped.
 * `columns` reads only those (noteid always): at 200 cards each column read out of sql.js shows.
 */
export function getNotes(db: Db, noteIds: readonly string[]): NoteRow[];
export function getNotes<K extends keyof NoteRow>(
  db: Db,
  noteIds: readonly string[],
  columns: readonly K[],
): Array<Pick<NoteRow, K | 'noteid'>>;
export function getNotes(
  db: Db,
  noteIds: readonly string[],
  columns?: readonly (keyof NoteRow)[],
): Array<Partial<NoteRow> & { noteid: string }> {
  const ids = [...new Set(noteIds)];
  const list = columns ? [...new Set(['noteid', ...columns])].join(', ') : '*';
  const rows = db.all<NoteRow>(`SELECT ${list} FROM notes WHERE hidden = 0 AND noteid IN ${inList(ids.length)}`, ids);
  const byId = new Map(rows.map((r) => [r.noteid, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length)
    throw notFound(
      'NOTE_NOT_FOUND',
      `No card${missing.length > 1 ? 's' : ''} ${missing.join(', ')}. Nothing was changed.`,
      { missing },
    );
  return ids.map((id) => byId.get(id)!);
}

/** The one set all `notes` belong to, else 422 NOTES_IN_DIFFERENT_SETS. */
export function oneSetOf(notes: readonly NoteRow[]): string {
  const sets = [...new Set(notes.map((n) => n.topicid))];
  if (sets.length > 1) {
    throw invalidInput(
      `These cards belong to ${sets.length} different study sets; one call works within one set. Nothing was changed.`,
      { topicids: sets },
      'NOTES_IN_DIFFERENT_SETS',
    );
  }
  return sets[0];
}

/** Children of a card in sibling order (visible only). */
export function childrenOf(db: Db, parentId: string): NoteRow[] {
  return db.all<NoteRow>('SELECT * FROM notes WHERE parent_id = ? AND hidden = 0 ORDER BY position, noteid', [
    parentId,
  ]);
}

/** Ids of the visible descendants of `rootId` (not including it), parents before children. */
export function descendantIds(db: Db, rootId: string): string[] {
  return db
    .all<{ noteid: string }>(
      `WITH RECURSIVE sub(noteid, lvl) AS (
         SELECT noteid, 1 FROM notes WHERE parent_id = ? AND hidden = 0
         UNION ALL SELECT n.noteid, sub.lvl + 1 FROM notes n JOIN sub ON n.parent_id = sub.noteid WHERE n.hidden = 0)
       SELECT noteid FROM sub ORDER BY lvl`,
      [rootId],
    )
    .map((r) => r.noteid);
}

/** Ids from `ancestorId` up: the card's parent, its parent… to the top (not including the card). */
export function ancestorIds(db: Db, noteid: string): string[] {
  return db
    .all<{ noteid: string }>(
      `WITH RECURSIVE up(noteid, parent_id, lvl) AS (
         SELECT noteid, parent_id, 0 FROM notes WHERE noteid = ?
         UNION ALL SELECT n.noteid, n.parent_id, up.lvl + 1 FROM notes n JOIN up ON n.noteid = up.parent_id WHERE up.lvl < 10000)
       SELECT noteid FROM up WHERE lvl > 0 ORDER BY lvl`,
      [noteid],
    )
    .map((r) => r.noteid);
}

export interface Operation {
  topicid: string;
  /** The route's verb: create, move, copy, delete, title, text, comment, hashtags, metadata, fold, merge, sub-map, restore… */
  kind: string;
  actor: Actor;
  noteIds: readonly string[];
  now: string;
}

/**
 * Records one write batch (one undo group) in the operation log and marks
 * the set modified. Restore reads the log to find the person's edits since a
 * snapshot.
 */
export function recordOperation(tx: WriteTx, op: Operation): void {
  tx.run('INSERT INTO operations(topicid, kind, actor, token_id, note_ids, at) VALUES (?, ?, ?, ?, ?, ?)', [
    op.topicid,
    op.kind,
    op.actor.kind,
    op.actor.tokenId,
    JSON.stringify([...new Set(op.noteIds)]),
    op.now,
  ]);
  tx.run('UPDATE topics SET modified_at = ? WHERE topicid = ?', [op.now, op.topicid]);
}

/** The last operation's sequence number of a set (0 when none). */
export function lastOperationSeq(db: Db, topicid: string): number {
  return db.get<{ s: number | null }>('SELECT max(op_seq) AS s FROM operations WHERE topicid = ?', [topicid])?.s ?? 0;
}

/** 422 ROOT_CARD: the set's root card cannot be the object of this operation. */
export function refuseRootCard(db: Db, note: NoteRow, what: string): void {
  const root = db.get<{ root_note_id: string | null }>('SELECT root_note_id FROM topics WHERE topicid = ?', [
    note.topicid,
  ]);
  if (root?.root_note_id === note.noteid) {
    throw new BridgeError(
      'ROOT_CARD',
      422,
      `${note.noteid} is the root card of its study set, which cannot be ${what}. Nothing was changed.`,
      { noteid: note.noteid },
    );
  }
}
