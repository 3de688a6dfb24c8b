import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx } from '../../../ground/store/store';
import { newId } from '../../library/ids';
import { reindexNote } from './cardRowsInsert';

/** The copied card's own columns (the rest follow the original `from`). */
export interface CardCopy {
  noteid: string;
  topicid: string;
  parentId: string;
  position: number;
  title: string;
  referenceOf: string | null;
  now: string;
}

/** The original's columns a copy keeps. */
interface CopiedColumns {
  color_index: number | null;
  fill_index: number | null;
  folded: number;
  sub_map: number;
  source_bookmd5: string | null;
  source_page: number | null;
  source_rect: string | null;
  kind: string;
}

/**
 * Writes one copied card: its row, the texts, hashtags and pictures of
 * `contentId` (texts through `text`), the links of `linksOf` both ways (each
 * target through `target`), and its index row.
 */
export function insertCardCopy(
  tx: WriteTx,
  c: CardCopy,
  r: CopiedColumns,
  from: { contentId: string; linksOf: string; text: (t: string) => string; target: (id: string) => string },
): void {
  tx.run(
    `INSERT INTO notes(noteid, topicid, parent_id, position, title, color_index, fill_index, folded, hidden, sub_map, source_bookmd5, source_page, source_rect, reference_of, kind, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      c.noteid,
      c.topicid,
      c.parentId,
      c.position,
      c.title,
      r.color_index,
      r.fill_index,
      r.folded,
      r.sub_map,
      r.source_bookmd5,
      r.source_page,
      r.source_rect,
      c.referenceOf,
      r.kind,
      c.now,
      c.now,
    ],
  );
  const texts = tx.all<{ idx: number; text: string; excerpt: number; kind: string }>(
    'SELECT idx, text, excerpt, kind FROM note_texts WHERE noteid = ? ORDER BY idx',
    [from.contentId],
  );
  for (const t of texts)
    tx.run('INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, ?, ?, ?, ?)', [
      c.noteid,
      t.idx,
      from.text(t.text),
      t.excerpt,
      t.kind,
    ]);
  tx.run('INSERT OR IGNORE INTO note_hashtags(noteid, path) SELECT ?, path FROM note_hashtags WHERE noteid = ?', [
    c.noteid,
    from.contentId,
  ]);
  copyParts(tx, from.contentId, c.noteid);
  const links = tx.all<{ target_id: string }>('SELECT target_id FROM note_links WHERE noteid = ?', [from.linksOf]);
  for (const l of links) {
    const target = from.target(l.target_id);
    const link = 'INSERT OR IGNORE INTO note_links(noteid, target_id, created_at) VALUES (?, ?, ?)';
    tx.run(link, [c.noteid, target, c.now]);
    tx.run(link, [target, c.noteid, c.now]);
  }
  reindexNote(tx, c.noteid);
}

function copyParts(tx: WriteTx, fromId: string, toId: string): void {
  const parts = tx.all<{
    idx: number;
    kind: string;
    mime_type: string | null;
    data: string | null;
    blob: Uint8Array | null;
  }>('SELECT idx, kind, mime_type, data, blob FROM note_parts WHERE noteid = ? ORDER BY idx', [fromId]);
  for (const p of parts) {
    tx.run(
      'INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data, blob) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [newId(), toId, p.idx, p.kind, p.mime_type, p.data, p.blob] as SqlParam[],
    );
  }
}
