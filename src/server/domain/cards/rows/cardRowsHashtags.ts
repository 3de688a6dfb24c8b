import type { WriteTx } from '../../../ground/store/store';

/**
 * Changes a card's hashtag rows by difference: only `remove` and `add` are
 * written, so untouched tags keep their place (and the set its first
 * spellings). The caller stamps and reindexes the card.
 */
export function changeHashtags(tx: WriteTx, noteid: string, remove: readonly string[], add: readonly string[]): void {
  for (const path of remove) tx.run('DELETE FROM note_hashtags WHERE noteid = ? AND path = ?', [noteid, path]);
  for (const path of add) tx.run('INSERT INTO note_hashtags(noteid, path) VALUES (?, ?)', [noteid, path]);
}
