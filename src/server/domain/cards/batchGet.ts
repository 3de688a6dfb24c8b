import type { Db, NoteRow, NoteTextRow } from './noteRows';
import { inList } from './noteRows';
import { hashtagPath } from './hashtagPaths';
import { sourceAnchorOf } from './sourceAnchor';
import { excerptContentId } from './cardImages';
import { packedRows } from './packedRows';

/** A card part in visual order; `index` is its position in parts[], `textIndex` ties a text part to texts[]. */
export interface CardPart {
  contentId: string | null;
  index: number;
  kind: string;
  noteid: string;
  excerpt: boolean;
  mimeType: string | null;
  textIndex?: number;
  /** Occlusion masks stored on a picture part (image-occlusions). */
  occlusion?: unknown;
}

const TEXT_MIME = 'text/plain';

/** The occlusion masks in a part's data JSON, if any. */
function occlusionIn(data: string | null): unknown {
  if (!data) return undefined;
  try {
    return (JSON.parse(data) as { occlusion?: unknown }).occlusion;
  } catch {
    return undefined;
  }
}

/** Cards' rows in one packed query (packedRows.ts); none asked, none read. */
function packed<T extends unknown[]>(db: Db, columns: string, from: string, params: string[]): T[] {
  return params.length ? packedRows<T>(db, columns, from, params) : [];
}

const group = <T extends unknown[]>(rows: T[]) => {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = r[0] as string;
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
};

type NoteTuple = [
  string,
  string,
  string | null,
  string,
  number | null,
  number | null,
  number,
  number,
  string | null,
  number | null,
  string | null,
  string | null,
  string,
  string,
  string,
];
const NOTE_COLUMNS =
  'noteid, topicid, parent_id, title, color_index, fill_index, folded, sub_map, source_bookmd5, source_page, source_rect, reference_of, kind, created_at, modified_at';
const toNote = (t: NoteTuple): Omit<NoteRow, 'position' | 'hidden'> => ({
  noteid: t[0],
  topicid: t[1],
  parent_id: t[2],
  title: t[3],
  color_index: t[4],
  fill_index: t[5],
  folded: t[6],
  sub_map: t[7],
  source_bookmd5: t[8],
  source_page: t[9],
  source_rect: t[10],
  reference_of: t[11],
  kind: t[12],
  created_at: t[13],
  modified_at: t[14],
});
type Note = ReturnType<typeof toNote>;

type TextTuple = [string, number, string, number, string];
type PartTuple = [string, string, number, string, string | null, string | null];

/** What a batch reads besides the cards' own rows, each keyed by card (texts and parts by the card holding the content). */
interface BatchRows {
  texts: Map<string, TextTuple[]>;
  parts: Map<string, PartTuple[]>;
  tags: Map<string, [string, string][]>;
  links: Map<string, [string, string][]>;
  childCounts: Map<string, number>;
}

/**
 * POST /notes/batch-get: up to 200 cards in a fixed number of queries.
 * A reference copy reads title, texts, parts and source of its original
 * (content is synchronised); its hashtags, metadata, fold state and place in
 * the tree are its own. Parts in visual order: the title, the body (texts
 * index 0), the stored parts (note_parts by idx: images, ink, audio…), then
 * the comments 1..N. Unknown or hidden ids (or cards of a hidden set) are
 * listed in notFound.
 */
export function batchGet(db: Db, noteIds: readonly string[]) {
  const ids = [...new Set(noteIds)];
  const rows = packed<NoteTuple>(
    db,
    NOTE_COLUMNS,
    `notes WHERE hidden = 0 AND noteid IN ${inList(ids.length)} AND topicid NOT IN (SELECT topicid FROM topics WHERE hidden = 1)`,
    ids,
  ).map(toNote);
  const byId = new Map(rows.map((r) => [r.noteid, r]));
  const found = ids.filter((id) => byId.has(id));
  const notFound = ids.filter((id) => !byId.has(id));

  // Where each card's content lives: itself, or the original of a reference copy.
  const originalIds = [...new Set(rows.map((r) => r.reference_of).filter((x): x is string => !!x))];
  const originals = new Map(
    packed<NoteTuple>(db, NOTE_COLUMNS, `notes WHERE noteid IN ${inList(originalIds.length)}`, originalIds).map((t) => [
      t[0],
      toNote(t),
    ]),
  );
  const contentOf = (r: Note) => (r.reference_of ? (originals.get(r.reference_of) ?? r) : r);
  const contentIds = [...new Set(rows.map((r) => contentOf(r).noteid))];
  const batch = readBatchRows(db, found, contentIds);
  const notes = found.map((id) => {
    const n = byId.get(id)!;
    return cardOf(n, contentOf(n), batch);
  });
  return { notes, notFound, count: notes.length };
}

/** The texts, parts, hashtags, links and child counts of `found` cards (content from `contentIds`): one query each. */
function readBatchRows(db: Db, found: string[], contentIds: string[]): BatchRows {
  const texts = group(
    packed<TextTuple>(
      db,
      'noteid, idx, text, excerpt, kind',
      `note_texts WHERE noteid IN ${inList(contentIds.length)} ORDER BY noteid, idx`,
      contentIds,
    ),
  );
  const parts = group(
    packed<PartTuple>(
      db,
      'noteid, content_id, idx, kind, mime_type, data',
      `note_parts WHERE noteid IN ${inList(contentIds.length)} ORDER BY noteid, idx, content_id`,
      contentIds,
    ),
  );
  const tags = group(
    packed<[string, string]>(
      db,
      'noteid, path',
      `note_hashtags WHERE noteid IN ${inList(found.length)} ORDER BY noteid, lower(path)`,
      found,
    ),
  );
  const list = inList(found.length);
  const links = group(
    packed<[string, string]>(
      db,
      'noteid, other',
      `(SELECT l.noteid AS noteid, l.target_id AS other, l.created_at AS at FROM note_links l JOIN notes o ON o.noteid = l.target_id AND o.hidden = 0 WHERE l.noteid IN ${list}
        UNION SELECT l.target_id, l.noteid, l.created_at FROM note_links l JOIN notes o ON o.noteid = l.noteid AND o.hidden = 0 WHERE l.target_id IN ${list}) ORDER BY noteid, at, other`,
      [...found, ...found],
    ),
  );
  const childCounts = new Map(
    packed<[string, number]>(
      db,
      'parent_id, c',
      `(SELECT parent_id, count(*) AS c FROM notes WHERE hidden = 0 AND parent_id IN ${list} GROUP BY parent_id)`,
      found,
    ),
  );
  return { texts, parts, tags, links, childCounts };
}

/** One card as batch-get answers it: `n` its own row, `c` the row holding its content (n itself, or its original). */
function cardOf(n: Note, c: Note, batch: BatchRows) {
  const id = n.noteid;
  const t: NoteTextRow[] = (batch.texts.get(c.noteid) ?? []).map(([noteid, idx, text, excerpt, kind]) => ({
    noteid,
    idx,
    text,
    excerpt,
    kind,
  }));
  const hashtags = (batch.tags.get(id) ?? []).map((h) => h[1]);
  return {
    noteid: id,
    topicid: n.topicid,
    parent: n.parent_id,
    title: c.title,
    kind: n.kind,
    referenceOf: n.reference_of,
    texts: t.map((x) => ({ index: x.idx, text: x.text, excerpt: x.excerpt === 1, noteid: x.noteid, kind: x.kind })),
    parts: cardPartsOf(c, t, batch.parts.get(c.noteid) ?? []),
    metadata: { colorIndex: n.color_index, fillIndex: n.fill_index },
    hashtags,
    hashtagPaths: hashtags.map(hashtagPath),
    sourceAnchor: sourceAnchorOf(
      c,
      t.some((x) => x.excerpt === 1),
    ),
    links: [...new Set((batch.links.get(id) ?? []).map((l) => l[1]))],
    folded: n.folded === 1,
    isSubMapRoot: n.sub_map === 1,
    childCount: batch.childCounts.get(id) ?? 0,
    createdAt: n.created_at,
    modifiedAt: n.modified_at,
  };
}

/** A card's parts in visual order: title, body, the excerpt's page region, stored parts, then the comments. */
function cardPartsOf(c: Note, t: NoteTextRow[], stored: PartTuple[]): CardPart[] {
  const cardParts: CardPart[] = [];
  const addText = (x: NoteTextRow) =>
    cardParts.push({
      contentId: null,
      index: cardParts.length,
      kind: x.kind,
      noteid: x.noteid,
      excerpt: x.excerpt === 1,
      mimeType: TEXT_MIME,
      textIndex: x.idx,
    });
  if (c.title)
    cardParts.push({
      contentId: null,
      index: 0,
      kind: 'title',
      noteid: c.noteid,
      excerpt: false,
      mimeType: TEXT_MIME,
    });
  const body = t.find((x) => x.idx === 0);
  if (body) addText(body);
  // An anchored excerpt shows the page region under it (GET /notes/{id}/content/excerpt-<noteid>); its row exists once masks are stored.
  if (c.source_rect && c.source_page && !stored.some((p) => p[3] === 'excerpt_image')) {
    cardParts.push({
      contentId: excerptContentId(c.noteid),
      index: cardParts.length,
      kind: 'excerpt_image',
      noteid: c.noteid,
      excerpt: true,
      mimeType: 'image/png',
    });
  }
  for (const [noteid, contentId, , kind, mimeType, data] of stored) {
    const occlusion = occlusionIn(data);
    cardParts.push({
      contentId,
      index: cardParts.length,
      kind,
      noteid,
      excerpt: kind === 'excerpt_image',
      mimeType,
      ...(occlusion ? { occlusion } : {}),
    });
  }
  for (const x of t) if (x.idx > 0) addText(x);
  return cardParts;
}
