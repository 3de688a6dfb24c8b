import type { WriteTx } from '../../../ground/store/store';

/**
 * A card's stored parts (pictures, excerpt regions) and the JSON kept beside
 * them, such as an image occlusion's masks. The caller stamps the cards and
 * records the operation.
 */

/** Replaces a stored part's JSON data. */
export function setPartData(tx: WriteTx, contentId: string, data: string): void {
  tx.run('UPDATE note_parts SET data = ? WHERE content_id = ?', [data, contentId]);
}

/** Stores an excerpt's page region as a part of its own, first among the card's parts as batch-get lists them. */
export function insertExcerptPart(tx: WriteTx, noteid: string, contentId: string, data: string): void {
  const idx =
    (tx.get<{ m: number | null }>('SELECT min(idx) AS m FROM note_parts WHERE noteid = ?', [noteid])?.m ?? 1) - 1;
  tx.run('INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data) VALUES (?, ?, ?, ?, ?, ?)', [
    contentId,
    noteid,
    idx,
    'excerpt_image',
    'image/png',
    data,
  ]);
}
