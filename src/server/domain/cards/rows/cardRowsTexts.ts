import type { WriteTx } from '../../../ground/store/store';

/**
 * What a card says: its title, its body (text 0) and its comments (texts
 * 1..N). The caller checks the edit, reindexes the card (reindexNote),
 * stamps it (touchNote) and records the operation.
 */

/** Sets the title, stamped modified at `now`. */
export function retitleCard(tx: WriteTx, noteid: string, title: string, now: string): void {
  tx.run('UPDATE notes SET title = ?, modified_at = ? WHERE noteid = ?', [title, now, noteid]);
}

/** Writes the body as typed text (no longer an excerpt); null removes it. */
export function writeBody(tx: WriteTx, noteid: string, body: { text: string; kind: string } | null): void {
  if (!body) tx.run('DELETE FROM note_texts WHERE noteid = ? AND idx = 0', [noteid]);
  else
    tx.run('INSERT OR REPLACE INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 0, ?, 0, ?)', [
      noteid,
      body.text,
      body.kind,
    ]);
}

/** Adds a typed comment at `idx` (the caller picks a free index). */
export function insertComment(tx: WriteTx, noteid: string, idx: number, text: string, kind: string): void {
  tx.run('INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, ?, ?, 0, ?)', [noteid, idx, text, kind]);
}

/** Replaces comment `idx` with typed text. */
export function replaceComment(tx: WriteTx, noteid: string, idx: number, text: string, kind: string): void {
  tx.run('UPDATE note_texts SET text = ?, kind = ?, excerpt = 0 WHERE noteid = ? AND idx = ?', [
    text,
    kind,
    noteid,
    idx,
  ]);
}

/** Removes comment `idx`; the later ones move up by one, so indexes stay dense. */
export function removeComment(tx: WriteTx, noteid: string, idx: number): void {
  tx.run('DELETE FROM note_texts WHERE noteid = ? AND idx = ?', [noteid, idx]);
  // Two steps through negative indexes: the primary key (noteid, idx) never sees two rows on one index.
  tx.run('UPDATE note_texts SET idx = -(idx - 1) WHERE noteid = ? AND idx > ?', [noteid, idx]);
  tx.run('UPDATE note_texts SET idx = -idx WHERE noteid = ? AND idx < 0', [noteid]);
}
