import { invalidInput } from '../../errors';
import type { WriteTx } from '../../ground/store/store';
import { type Db, getNote } from './noteRows';
import { deleteLinks, insertLinks } from './rows/cardRowsEdit';

/**
 * Two-way links between cards. A comment whose whole text (trimmed) is one
 * `studybridge://note/<noteid>` line is a link comment (kind 'link'); it
 * stores note_links rows in both directions, so either card lists the other.
 */

export const NOTE_LINK_SCHEME = 'studybridge://note/';
const LINK_LINE = /^studybridge:\/\/note\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export const noteLinkUrl = (noteid: string) => `${NOTE_LINK_SCHEME}${noteid}`;

/** The target id (upper case) when the whole text is one link line; else null. Pure. */
export function parseNoteLink(text: string): string | null {
  const m = LINK_LINE.exec(text.trim());
  return m ? m[1].toUpperCase() : null;
}

/** The target card of a link comment on `from`: visible (else 404 NOTE_NOT_FOUND) and not `from` itself (422). */
export function linkTarget(db: Db, from: string, target: string): string {
  if (target === from)
    throw invalidInput(`A card cannot link to itself (${target}). Nothing was changed.`, { noteid: from, target });
  return getNote(db, target).noteid;
}

/** Adds the link rows both ways (idempotent). */
export function linkNotes(tx: WriteTx, a: string, b: string, now: string): void {
  insertLinks(tx, a, b, now);
}

/** Link comments on `noteid` that point at `target`. */
function linkCommentCount(db: Db, noteid: string, target: string): number {
  return (
    db.get<{ n: number }>(
      "SELECT count(*) AS n FROM note_texts WHERE noteid = ? AND idx > 0 AND kind = 'link' AND upper(trim(text)) = upper(?)",
      [noteid, noteLinkUrl(target)],
    )?.n ?? 0
  );
}

/**
 * Removes the link between `a` and `b` once no link comment on either card
 * names the other any more (call after the comment itself is gone).
 */
export function unlinkIfUnused(tx: WriteTx, a: string, b: string): boolean {
  if (linkCommentCount(tx, a, b) || linkCommentCount(tx, b, a)) return false;
  deleteLinks(tx, a, b);
  return true;
}

/** Whether both link rows exist (the read-back of a link comment). */
export function linkedBothWays(db: Db, a: string, b: string): boolean {
  return (
    (db.get<{ n: number }>(
      'SELECT count(*) AS n FROM note_links WHERE (noteid = ? AND target_id = ?) OR (noteid = ? AND target_id = ?)',
      [a, b, b, a],
    )?.n ?? 0) === 2
  );
}
