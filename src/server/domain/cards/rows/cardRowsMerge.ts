import type { WriteTx } from '../../../ground/store/store';
import { inList, insertLinks } from './cardRowsEdit';

/**
 * A branch merged into one card: the merged cards' content joins `into`
 * before they are removed (noteDelete's removeCards). The caller decides
 * which cards merge and the title, then stamps and reindexes `into`.
 */

const maxIdx = (tx: WriteTx, table: 'note_texts' | 'note_parts', noteid: string) =>
  tx.get<{ m: number | null }>(`SELECT max(idx) AS m FROM ${table} WHERE noteid = ?`, [noteid])?.m;

/**
 * Appends each merged card, in the order given, to `into`: its title as a
 * comment (with `titlesAsComments`, when not blank), then its texts (body
 * first); its hashtags, parts and links to cards outside the branch join
 * `into`.
 */
export function appendMergedContent(
  tx: WriteTx,
  into: string,
  merged: readonly { noteid: string; title: string }[],
  titlesAsComments: boolean,
  now: string,
): void {
  let idx = Math.max(1, (maxIdx(tx, 'note_texts', into) ?? 0) + 1);
  let partIdx = (maxIdx(tx, 'note_parts', into) ?? -1) + 1;
  const tags = new Set(
    tx
      .all<{ path: string }>('SELECT path FROM note_hashtags WHERE noteid = ?', [into])
      .map((t) => t.path.toLowerCase()),
  );
  for (const m of merged) {
    if (titlesAsComments && m.title.trim())
      tx.run("INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, ?, ?, 0, 'text')", [
        into,
        idx++,
        m.title,
      ]);
    for (const t of tx.all<{ text: string; excerpt: number; kind: string }>(
      'SELECT text, excerpt, kind FROM note_texts WHERE noteid = ? ORDER BY idx',
      [m.noteid],
    )) {
      tx.run('INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, ?, ?, ?, ?)', [
        into,
        idx++,
        t.text,
        t.excerpt,
        t.kind,
      ]);
    }
    // Hashtags compare case-insensitively; the card's spelling (or the first merged one) wins.
    for (const t of tx.all<{ path: string }>('SELECT path FROM note_hashtags WHERE noteid = ? ORDER BY path', [
      m.noteid,
    ])) {
      if (tags.has(t.path.toLowerCase())) continue;
      tags.add(t.path.toLowerCase());
      tx.run('INSERT INTO note_hashtags(noteid, path) VALUES (?, ?)', [into, t.path]);
    }
    for (const p of tx.all<{ content_id: string }>('SELECT content_id FROM note_parts WHERE noteid = ? ORDER BY idx', [
      m.noteid,
    ])) {
      tx.run('UPDATE note_parts SET noteid = ?, idx = ? WHERE content_id = ?', [into, partIdx++, p.content_id]);
    }
  }
  joinLinks(tx, into, merged, now);
}

/** Links of merged cards now belong to `into` (two-way rows); links among the merged cards and `into` vanish. */
function joinLinks(tx: WriteTx, into: string, cards: readonly { noteid: string }[], now: string): void {
  const merged = cards.map((m) => m.noteid);
  const inside = new Set([into, ...merged]);
  const links = tx.all<{ noteid: string; target_id: string }>(
    `SELECT noteid, target_id FROM note_links WHERE noteid IN ${inList(merged.length)}`,
    merged,
  );
  for (const l of links) if (!inside.has(l.target_id)) insertLinks(tx, into, l.target_id, now);
}
