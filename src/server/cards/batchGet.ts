import type { Db, NoteRow, NoteTextRow } from './noteRows';
import { inList } from './noteRows';
import { hashtagPath } from './hashtagPaths';
import { sourceAnchorOf } from './sourceAnchor';

interface PartRow {
  content_id: string;
  noteid: string;
  idx: number;
  kind: string;
  mime_type: string | null;
}

/** A card part in visual order; `index` is its position in parts[], `textIndex` ties a text part to texts[]. */
export interface CardPart {
  contentId: string | null;
  index: number;
  kind: string;
  noteid: string;
  excerpt: boolean;
  mimeType: string | null;
  textIndex?: number;
}

const TEXT_MIME = 'text/plain';
const group = <T extends { noteid: string }>(rows: T[]) => {
  const m = new Map<string, T[]>();
  for (const r of rows) (m.get(r.noteid) ?? m.set(r.noteid, []).get(r.noteid)!).push(r);
  return m;
};

/**
 * POST /notes/batch-get: up to 200 cards in a fixed number of queries.
 * A reference copy reads title, texts, parts and source of its original
 * (content is synchronised); its hashtags, metadata, fold state and place in
 * the tree are its own. Parts in visual order: the title, the body (texts
 * index 0), the stored parts (note_parts by idx: images, ink, audio…), then
 * the comments 1..N. Unknown or hidden ids are listed in notFound.
 */
export function batchGet(db: Db, noteIds: readonly string[]) {
  const ids = [...new Set(noteIds)];
  const rows = db.all<NoteRow>(
    `SELECT n.* FROM notes n JOIN topics t ON t.topicid = n.topicid AND t.hidden = 0 WHERE n.hidden = 0 AND n.noteid IN ${inList(ids.length)}`,
    ids,
  );
  const byId = new Map(rows.map((r) => [r.noteid, r]));
  const found = ids.filter((id) => byId.has(id));
  const notFound = ids.filter((id) => !byId.has(id));

  // Where each card's content lives: itself, or the original of a reference copy.
  const originalIds = [...new Set(rows.map((r) => r.reference_of).filter((x): x is string => !!x))];
  const originals = new Map(
    (originalIds.length ? db.all<NoteRow>(`SELECT * FROM notes WHERE noteid IN ${inList(originalIds.length)}`, originalIds) : []).map((r) => [r.noteid, r]),
  );
  const contentOf = (r: NoteRow) => (r.reference_of ? (originals.get(r.reference_of) ?? r) : r);
  const contentIds = [...new Set(rows.map((r) => contentOf(r).noteid))];

  const texts = group(db.all<NoteTextRow>(`SELECT noteid, idx, text, excerpt, kind FROM note_texts WHERE noteid IN ${inList(contentIds.length)} ORDER BY noteid, idx`, contentIds));
  const parts = group(db.all<PartRow>(`SELECT content_id, noteid, idx, kind, mime_type FROM note_parts WHERE noteid IN ${inList(contentIds.length)} ORDER BY noteid, idx, content_id`, contentIds));
  const tags = group(db.all<{ noteid: string; path: string }>(`SELECT noteid, path FROM note_hashtags WHERE noteid IN ${inList(found.length)} ORDER BY noteid, lower(path)`, found));
  const links = group(
    db.all<{ noteid: string; other: string }>(
      `SELECT l.noteid, l.target_id AS other, l.created_at FROM note_links l JOIN notes o ON o.noteid = l.target_id AND o.hidden = 0 WHERE l.noteid IN ${inList(found.length)}
       UNION SELECT l.target_id AS noteid, l.noteid AS other, l.created_at FROM note_links l JOIN notes o ON o.noteid = l.noteid AND o.hidden = 0 WHERE l.target_id IN ${inList(found.length)}
       ORDER BY 1, 3, 2`,
      [...found, ...found],
    ),
  );
  const childCounts = new Map(
    db
      .all<{ parent_id: string; c: number }>(`SELECT parent_id, count(*) AS c FROM notes WHERE hidden = 0 AND parent_id IN ${inList(found.length)} GROUP BY parent_id`, found)
      .map((r) => [r.parent_id, r.c]),
  );

  const notes = found.map((id) => {
    const n = byId.get(id)!;
    const c = contentOf(n);
    const t = texts.get(c.noteid) ?? [];
    const cardTexts = t.map((x) => ({ index: x.idx, text: x.text, excerpt: x.excerpt === 1, noteid: x.noteid, kind: x.kind }));
    const cardParts: CardPart[] = [];
    const addText = (x: NoteTextRow) =>
      cardParts.push({ contentId: null, index: cardParts.length, kind: x.kind, noteid: x.noteid, excerpt: x.excerpt === 1, mimeType: TEXT_MIME, textIndex: x.idx });
    if (c.title) cardParts.push({ contentId: null, index: 0, kind: 'title', noteid: c.noteid, excerpt: false, mimeType: TEXT_MIME });
    const body = t.find((x) => x.idx === 0);
    if (body) addText(body);
    for (const p of parts.get(c.noteid) ?? []) {
      cardParts.push({ contentId: p.content_id, index: cardParts.length, kind: p.kind, noteid: p.noteid, excerpt: p.kind === 'excerpt_image', mimeType: p.mime_type });
    }
    for (const x of t) if (x.idx > 0) addText(x);
    const hashtags = (tags.get(id) ?? []).map((h) => h.path);
    return {
      noteid: id,
      topicid: n.topicid,
      parent: n.parent_id,
      title: c.title,
      kind: n.kind,
      referenceOf: n.reference_of,
      texts: cardTexts,
      parts: cardParts,
      metadata: { colorIndex: n.color_index, fillIndex: n.fill_index },
      hashtags,
      hashtagPaths: hashtags.map(hashtagPath),
      sourceAnchor: sourceAnchorOf(c, t.some((x) => x.excerpt === 1)),
      links: [...new Set((links.get(id) ?? []).map((l) => l.other))],
      folded: n.folded === 1,
      isSubMapRoot: n.sub_map === 1,
      childCount: childCounts.get(id) ?? 0,
      createdAt: n.created_at,
      modifiedAt: n.modified_at,
    };
  });
  return { notes, notFound, count: notes.length };
}
