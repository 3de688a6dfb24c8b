import { BridgeError } from '../../errors';
import type { Rect } from '../../ground/pdf/pdfTypes';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import type { HighlightAnnot } from '../../ground/pdf/highlightWrite';
import { assertStudySet } from '../library/studySets';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import type { PageReader } from '../library/pageReader';
import type { ExportSlot } from '../library/exportSlot';
import type { Store } from '../../ground/store/store';
import { anchorBoxes } from '../cards/anchorRects';
import { inList } from '../cards/noteRows';
import { paletteRgb01 } from './paletteColor';

/** What an annotated export reads and holds. */
export interface AnnotatedExportDeps {
  store: Store;
  documents: DocumentCatalogue;
  pages: Pick<PageReader, 'pageSize'>;
  pool: Pick<ExtractionPool, 'annotate'>;
  exportSlot: ExportSlot;
}

interface CardRow {
  noteid: string;
  title: string;
  source_page: number;
  source_rect: string;
  color_index: number | null;
}

/**
 * A card's /Contents, what import reads back: its title, then its body unless
 * that is the excerpt (the page shows it) or just the title again, then its
 * comments, each after a blank line.
 */
function contentsOf(title: string, texts: readonly { idx: number; text: string; excerpt: number }[]): string {
  const parts = texts
    .filter((t) => !(t.idx === 0 && (t.excerpt === 1 || t.text.trim() === title.trim())))
    .map((t) => t.text);
  return [title, ...parts]
    .map((s) => s.trim())
    .filter(Boolean)
    .join('\n\n');
}

/** Anchors stored as fractions of the page (all ≤ 1, as some old rows are) in points. */
async function inPoints(deps: AnnotatedExportDeps, bookmd5: string, page: number, rects: Rect[]): Promise<Rect[]> {
  if (!rects.every((r) => r.x <= 1 && r.y <= 1 && r.w <= 1 && r.h <= 1)) return rects;
  const size = await deps.pages.pageSize(bookmd5, page);
  return size
    ? rects.map((r) => ({ x: r.x * size.width, y: r.y * size.height, w: r.w * size.width, h: r.h * size.height }))
    : rects;
}

const safeStem = (name: string) =>
  name
    .replace(/\.pdf$/i, '')
    .replace(/[^\p{L}\p{N}._ -]+/gu, '_')
    .slice(0, 80) || 'document';

/**
 * A copy of the book in which every anchored card of the set on that book is
 * a standard Highlight annotation (one quad per anchor rectangle, the card's
 * palette colour, its title and comments as /Contents), built with pdf-lib in
 * a PDF worker. One export at a time (503 EXPORT_BUSY). 422 NO_EXCERPT_CARDS
 * when the set has no card anchored on the book.
 */
export async function annotatedPdf(
  deps: AnnotatedExportDeps,
  topicid: string,
  bookmd5: string,
): Promise<{ pdf: Buffer; fileName: string; highlights: number }> {
  assertStudySet(deps.store, topicid);
  const row = deps.documents.get(bookmd5);
  deps.documents.assertFile(row);
  const cards = deps.store.all<CardRow>(
    `SELECT noteid, title, source_page, source_rect, color_index FROM notes
     WHERE topicid = ? AND source_bookmd5 = ? AND hidden = 0 AND source_rect IS NOT NULL AND source_page IS NOT NULL AND source_page <= ?
     ORDER BY source_page, noteid`,
    [topicid, bookmd5, row.page_count],
  );
  if (!cards.length) {
    throw new BridgeError(
      'NO_EXCERPT_CARDS',
      422,
      `Study set ${topicid} has no card anchored on ${row.filename}, so there is nothing to highlight. Make excerpt cards first (POST /study-sets/{id}/cards with an excerpt).`,
      { topicid, bookmd5 },
    );
  }
  const texts = new Map<string, { idx: number; text: string; excerpt: number }[]>();
  for (let i = 0; i < cards.length; i += 500) {
    const ids = cards.slice(i, i + 500).map((c) => c.noteid);
    const rows = deps.store.all<{ noteid: string; idx: number; text: string; excerpt: number }>(
      `SELECT noteid, idx, text, excerpt FROM note_texts WHERE kind IN ('text', 'excerpt') AND noteid IN ${inList(ids.length)} ORDER BY noteid, idx`,
      ids,
    );
    for (const r of rows) texts.set(r.noteid, [...(texts.get(r.noteid) ?? []), r]);
  }
  const highlights: HighlightAnnot[] = [];
  for (const c of cards) {
    const boxes = anchorBoxes(c.source_rect);
    if (!boxes) continue;
    const rects = boxes.rects
      .map((b) => ({ x: b.x, y: b.y, w: b.width, h: b.height }))
      .filter((r) => [r.x, r.y, r.w, r.h].every(Number.isFinite) && r.w > 0 && r.h > 0);
    if (!rects.length) continue;
    highlights.push({
      page: c.source_page,
      quads: await inPoints(deps, bookmd5, c.source_page, rects),
      color: paletteRgb01(c.color_index),
      contents: contentsOf(c.title, texts.get(c.noteid) ?? []),
      name: c.noteid,
    });
  }
  const pages = Array.from({ length: row.page_count }, (_, i) => i + 1);
  const pdf = await deps.exportSlot.run(() => deps.pool.annotate(deps.documents.source(row), highlights, pages));
  return { pdf, fileName: `${safeStem(row.filename)}-highlighted.pdf`, highlights: highlights.length };
}
