import type { WriteTx } from '../../../ground/store/store';
import { setTitle, touchNotes } from './cardRowsEdit';

/**
 * The rows a card's removal changes besides its own (purgeNotes drops those):
 * its children placed among its parent's, its reference copies made
 * independent, or the card only hidden. The caller decides which, reindexes
 * and records the operation.
 */

/**
 * Makes `order` the children of `parentId` at positions 0..n-1 and stamps the
 * `moved` ones; `from`'s hidden children follow too, so no row keeps pointing
 * at a purged card.
 */
export function placeChildren(
  tx: WriteTx,
  from: string,
  parentId: string,
  order: readonly string[],
  moved: readonly string[],
  now: string,
): void {
  order.forEach((id, i) => tx.run('UPDATE notes SET parent_id = ?, position = ? WHERE noteid = ?', [parentId, i, id]));
  touchNotes(tx, moved, now);
  tx.run('UPDATE notes SET parent_id = ? WHERE parent_id = ? AND hidden = 1', [parentId, from]);
}

/**
 * A reference copy becomes a card of its own: given the `original` row, it
 * takes its title and texts (the content it showed); then it is no longer a
 * reference.
 */
export function detachCopy(
  tx: WriteTx,
  copy: string,
  original: { noteid: string; title: string } | undefined,
  now: string,
): void {
  if (original) {
    setTitle(tx, copy, original.title);
    tx.run('DELETE FROM note_texts WHERE noteid = ?', [copy]);
    tx.run(
      'INSERT INTO note_texts(noteid, idx, text, excerpt, kind) SELECT ?, idx, text, excerpt, kind FROM note_texts WHERE noteid = ?',
      [copy, original.noteid],
    );
  }
  tx.run('UPDATE notes SET reference_of = NULL, modified_at = ? WHERE noteid = ?', [now, copy]);
}

/** Hides a card instead of removing it (a review deck still uses it as source). */
export function hideCard(tx: WriteTx, noteid: string, now: string): void {
  tx.run('UPDATE notes SET hidden = 1, modified_at = ? WHERE noteid = ?', [now, noteid]);
}
