import { existsSync } from 'node:fs';
import { BridgeError, notFound } from '../../errors';
import { documentFileMissing, type DocumentCatalogue } from '../library/documentCatalogue';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import type { PageCache } from '../../ground/cache/pageCache';

/** What an excerpt picture reads: the document's file, the page sizes in the cache, the renderer. */
export interface ExcerptRenderDeps {
  documents: DocumentCatalogue;
  pageCache: Pick<PageCache, 'pageSize'>;
  pool: Pick<ExtractionPool, 'render'>;
}
import { getNote, type Db, type NoteRow } from './noteRows';
import { anchorBoxes } from './anchorRects';

/**
 * The images of a card: the page region under an excerpt's anchor (listed by
 * batch-get as an `excerpt_image` part, `excerpt-<noteid>`, whether or not a
 * note_parts row exists for it yet: the row is made when masks are stored),
 * and the stored parts (image, ink; audio and video are served raw).
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface OcclusionMask {
  index: number;
  rect: Rect;
  group?: number;
  flags?: number;
  isText?: boolean;
}

export interface Occlusion {
  coordinateSpace: 'normalized_top_left';
  masks: OcclusionMask[];
}

/** The page region under an excerpt (rect in PDF points, top-left origin). */
export interface ExcerptRegion {
  bookmd5: string;
  page: number;
  rect: Rect;
}

export interface PartRow {
  content_id: string;
  noteid: string;
  idx: number;
  kind: string;
  mime_type: string | null;
  data: string | null;
  blob: Uint8Array | null;
}

export interface CardContent {
  contentId: string;
  kind: string;
  mimeType: string | null;
  /** The stored row; null for an excerpt region no row was made for yet. */
  row: PartRow | null;
  /** Set for excerpt_image parts. */
  region: ExcerptRegion | null;
  occlusion: Occlusion | null;
}

export const EXCERPT_PREFIX = 'excerpt-';
export const excerptContentId = (noteid: string) => `${EXCERPT_PREFIX}${noteid}`;

/** Part kinds drawn as a picture (the rest with a blob are served raw). */
export const IMAGE_KINDS = new Set(['excerpt_image', 'image', 'ink']);

/** The card and the card holding its content (the original of a reference copy). 404 NOTE_NOT_FOUND. */
export function cardAndContent(db: Db, noteid: string): { card: NoteRow; content: NoteRow } {
  const card = getNote(db, noteid);
  const content = card.reference_of
    ? (db.get<NoteRow>('SELECT * FROM notes WHERE noteid = ?', [card.reference_of]) ?? card)
    : card;
  return { card, content };
}

/** The anchored page region of a card, or null (no source, or an excerpt that could not be placed). */
export function excerptRegionOf(
  n: Pick<NoteRow, 'source_bookmd5' | 'source_page' | 'source_rect'>,
): ExcerptRegion | null {
  if (!n.source_bookmd5 || !n.source_page || !n.source_rect) return null;
  const rect = anchorBoxes(n.source_rect)!.rect;
  if (!(rect.width > 0 && rect.height > 0)) return null;
  return { bookmd5: n.source_bookmd5, page: n.source_page, rect };
}

export function occlusionOf(data: string | null): Occlusion | null {
  if (!data) return null;
  const o = (JSON.parse(data) as { occlusion?: Occlusion }).occlusion;
  return o && Array.isArray(o.masks) ? o : null;
}

function fromRow(row: PartRow, content: NoteRow): CardContent {
  return {
    contentId: row.content_id,
    kind: row.kind,
    mimeType: row.mime_type,
    row,
    region: row.kind === 'excerpt_image' ? excerptRegionOf(content) : null,
    occlusion: occlusionOf(row.data),
  };
}

/** The stored excerpt_image row of a card, if masks (or a copy) made one. */
const excerptRow = (db: Db, noteid: string) =>
  db.get<PartRow>("SELECT * FROM note_parts WHERE noteid = ? AND kind = 'excerpt_image' ORDER BY idx LIMIT 1", [
    noteid,
  ]);

/** The card's excerpt image part: its stored row, or the region alone. Null when the card is not anchored. */
export function excerptPart(db: Db, content: NoteRow): CardContent | null {
  const region = excerptRegionOf(content);
  if (!region) return null;
  const row = excerptRow(db, content.noteid);
  if (row) return fromRow(row, content);
  return {
    contentId: excerptContentId(content.noteid),
    kind: 'excerpt_image',
    mimeType: 'image/png',
    row: null,
    region,
    occlusion: null,
  };
}

/** One content part of a card as batch-get lists it; 404 CONTENT_NOT_FOUND. */
export function findContent(db: Db, content: NoteRow, contentId: string, cardId: string): CardContent {
  const row = db.get<PartRow>('SELECT * FROM note_parts WHERE content_id = ? AND noteid = ?', [
    contentId,
    content.noteid,
  ]);
  if (row && !(row.kind === 'excerpt_image' && !excerptRegionOf(content))) return fromRow(row, content);
  if (contentId === excerptContentId(content.noteid)) {
    const part = excerptPart(db, content);
    if (part) return part;
  }
  throw notFound(
    'CONTENT_NOT_FOUND',
    `Card ${cardId} has no content part ${contentId}; POST /notes/batch-get lists its parts[] with their contentId.`,
    { noteid: cardId, contentId },
  );
}

/**
 * The picture occlusions go on: the part named by `contentId`, else the
 * excerpt region of an anchored card, else its first stored image.
 * 422 NOT_AN_IMAGE_CARD otherwise.
 */
export function occlusionTarget(db: Db, content: NoteRow, cardId: string, contentId?: string): CardContent {
  const refuse = (why: string) =>
    new BridgeError(
      'NOT_AN_IMAGE_CARD',
      422,
      `Card ${cardId} ${why}; image occlusions go on an image card or an anchored PDF excerpt card. Nothing was changed.`,
      { noteid: cardId, ...(contentId ? { contentId } : {}) },
    );
  if (contentId !== undefined) {
    const part = findContent(db, content, contentId, cardId);
    if (part.kind !== 'image' && part.kind !== 'excerpt_image')
      throw refuse(`part ${contentId} is ${part.kind}, not an image`);
    if (part.kind === 'image' && !part.row?.blob) throw refuse(`part ${contentId} holds no image bytes`);
    return part;
  }
  const excerpt = excerptPart(db, content);
  if (excerpt) return excerpt;
  const row = db.get<PartRow>(
    "SELECT * FROM note_parts WHERE noteid = ? AND kind = 'image' AND blob IS NOT NULL ORDER BY idx, content_id LIMIT 1",
    [content.noteid],
  );
  if (row) return fromRow(row, content);
  throw refuse(
    content.source_bookmd5
      ? 'is an excerpt that was never placed on its page (no rectangle)'
      : 'has no image and no PDF excerpt',
  );
}

/** Points of page around an excerpt's rectangle: locate's rectangle hugs the glyphs, descenders would be cut. */
export const EXCERPT_MARGIN_PT = 4;

/**
 * The page area an excerpt picture shows (and occlusion masks are relative
 * to): the anchor rectangle with a small margin, kept on the page.
 */
export async function pictureRect(deps: Pick<ExcerptRenderDeps, 'pageCache'>, region: ExcerptRegion): Promise<Rect> {
  // Size from the page cache's table only: a picture is never held up by a rebuild.
  const page = await deps.pageCache.pageSize(region.bookmd5, region.page).catch(() => undefined);
  const { rect } = region;
  const x = Math.max(0, rect.x - EXCERPT_MARGIN_PT);
  const y = Math.max(0, rect.y - EXCERPT_MARGIN_PT);
  const right = Math.min(page?.width ?? Infinity, rect.x + rect.width + EXCERPT_MARGIN_PT);
  const bottom = Math.min(page?.height ?? Infinity, rect.y + rect.height + EXCERPT_MARGIN_PT);
  return { x, y, width: Math.max(1, right - x), height: Math.max(1, bottom - y) };
}

/**
 * Renders an excerpt region from its PDF so the longer edge is `longEdge`
 * pixels (the PDF is vector: any size is sharp). 422 DOCUMENT_FILE_MISSING
 * when the book or its file is gone.
 */
export async function renderRegion(
  deps: ExcerptRenderDeps,
  region: ExcerptRegion,
  longEdge: number,
): Promise<{ png: Buffer; width: number; height: number }> {
  const docs = deps.documents;
  const row = docs.find(region.bookmd5);
  if (!row || !existsSync(docs.filePath(row)))
    throw documentFileMissing(region.bookmd5, 'restore the file to see the excerpt image');
  const rect = await pictureRect(deps, region);
  const scale = longEdge / Math.max(rect.width, rect.height);
  return deps.pool.render(docs.source(row), region.page, scale, {
    x: rect.x,
    y: rect.y,
    w: rect.width,
    h: rect.height,
  });
}
