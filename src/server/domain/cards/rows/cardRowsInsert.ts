import type { WriteTx } from '../../../ground/store/store';
import { cardIndexBody } from '../../../ground/search/cardIndexText';
import { anchorJson, type PdfBox } from '../anchorRects';

/**
 * New card rows one card at a time: the card, its texts, hashtags and
 * pictures, and its search index row. Only this folder writes the card
 * tables (test/unit/cardRowOwner.test.ts); everything runs inside the
 * caller's transaction.
 */

type Reader = Pick<WriteTx, 'get'>;

/** The position after the last child of `parentId`. */
export function nextChildPosition(db: Reader, parentId: string): number {
  return (
    db.get<{ p: number | null }>('SELECT max(position) + 1 AS p FROM notes WHERE parent_id = ?', [parentId])?.p ?? 0
  );
}

export interface NewNote {
  noteid: string;
  topicid: string;
  parentId: string | null;
  /** Default: after the parent's last child. */
  position?: number;
  title: string;
  /** Body text (index 0), if any. */
  text?: string;
  /** The body is an excerpt of the source page. */
  excerpt?: boolean;
  source?: { bookmd5: string; page: number; rect: PdfBox | null; rects?: PdfBox[] } | null;
  colorIndex?: number | null;
  fillIndex?: number | null;
  referenceOf?: string | null;
  now: string;
}

/** Inserts a card (and its body text) and indexes it for search in the same transaction. */
export function insertNote(tx: WriteTx, n: NewNote): void {
  const position = n.position ?? (n.parentId ? nextChildPosition(tx, n.parentId) : 0);
  tx.run(
    `INSERT INTO notes(noteid, topicid, parent_id, position, title, color_index, fill_index, source_bookmd5, source_page, source_rect, reference_of, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      n.noteid,
      n.topicid,
      n.parentId,
      position,
      n.title,
      n.colorIndex ?? null,
      n.fillIndex ?? null,
      n.source?.bookmd5 ?? null,
      n.source?.page ?? null,
      n.source?.rect ? anchorJson(n.source.rect, n.source.rects) : null,
      n.referenceOf ?? null,
      n.now,
      n.now,
    ],
  );
  if (n.text !== undefined && n.text !== '') {
    tx.run('INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 0, ?, ?, ?)', [
      n.noteid,
      n.text,
      n.excerpt ? 1 : 0,
      n.excerpt ? 'excerpt' : 'text',
    ]);
  }
  reindexNote(tx, n.noteid);
}

/** A new set's root card: its title and index row, no texts. */
export function insertRootCard(tx: WriteTx, r: { noteid: string; topicid: string; title: string; now: string }): void {
  tx.run(
    `INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at) VALUES (?, ?, NULL, 0, ?, ?, ?)`,
    [r.noteid, r.topicid, r.title, r.now, r.now],
  );
  tx.run(`INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)`, [
    r.noteid,
    r.topicid,
    cardIndexBody(r.title),
  ]);
}

/** Plain texts (comments) at the given indexes; the caller reindexes the card. */
export function insertTexts(tx: WriteTx, noteid: string, texts: readonly { idx: number; text: string }[]): void {
  for (const t of texts)
    tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, ?, ?, 0, 'text')`, [
      noteid,
      t.idx,
      t.text,
    ]);
}

/** Hashtag rows of a card; the caller reindexes the card. */
export function insertHashtags(tx: WriteTx, noteid: string, paths: readonly string[]): void {
  for (const path of paths) tx.run('INSERT INTO note_hashtags(noteid, path) VALUES (?, ?)', [noteid, path]);
}

export interface NewImagePart {
  contentId: string;
  mime: string;
  /** JSON kept beside the picture (where it came from). */
  data: string;
  bytes: Uint8Array;
}

/** Image parts of a card from index `firstIdx` on. */
export function insertImageParts(tx: WriteTx, noteid: string, images: readonly NewImagePart[], firstIdx: number): void {
  images.forEach((img, i) =>
    tx.run(
      'INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data, blob) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [img.contentId, noteid, firstIdx + i, 'image', img.mime, img.data, img.bytes],
    ),
  );
}

/**
 * The index rows of the cards `where` selects from notes_fts_content by c0noteid
 * (its indexed column): deleting by docid through the content table's index is
 * a lookup, where a column constraint on notes_fts scans it all.
 */
export const deleteIndexRows = (where: string) =>
  `DELETE FROM notes_fts WHERE docid IN (SELECT docid FROM notes_fts_content WHERE ${where})`;

/** Rewrites a card's full-text row from its title, texts and hashtags (call after any change to them). */
export function reindexNote(tx: WriteTx, noteid: string): void {
  tx.run(deleteIndexRows('c0noteid = ?'), [noteid]);
  const n = tx.get<{ topicid: string; title: string; hidden: number }>(
    'SELECT topicid, title, hidden FROM notes WHERE noteid = ?',
    [noteid],
  );
  if (!n || n.hidden) return;
  const texts = tx
    .all<{ text: string }>('SELECT text FROM note_texts WHERE noteid = ? ORDER BY idx', [noteid])
    .map((t) => t.text);
  const tags = tx
    .all<{ path: string }>('SELECT path FROM note_hashtags WHERE noteid = ? ORDER BY path', [noteid])
    .map((t) => `#${t.path}`);
  tx.run('INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)', [
    noteid,
    n.topicid,
    cardIndexBody([n.title, ...texts, ...tags].join('\n')),
  ]);
}
