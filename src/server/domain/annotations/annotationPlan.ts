import { BridgeError } from '../../errors';
import type { Rect } from '../../ground/pdf/pdfTypes';
import type { AnnotationSkip, PageAnnotation } from '../../ground/pdf/pdfAnnotations';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import { EXPORT_AUTHOR } from '../../ground/pdf/highlightWrite';
import { assertStudySet } from '../library/studySets';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import type { ExtractionScheduler } from '../library/extractionScheduler';
import type { PageReader } from '../library/pageReader';
import type { Store } from '../../ground/store/store';
import { cutTitle } from '../cards/sourceAnchor';
import { anchorBoxes, type PdfBox } from '../cards/anchorRects';
import type { Db } from '../cards/noteRows';
import { textUnderQuads } from './quadText';
import { nearestPaletteIndex } from './paletteColor';
import { readAnnotationPages } from './annotationPages';

/** Most cards one import creates. */
export const MAX_IMPORT_CARDS = 5000;
/** Annotations turned into cards between two turns of the event loop. */
const PLAN_SLICE = 1000;

/** Text markup: the quads mark text on the page, which becomes an excerpt. */
export const MARKUP_KINDS = new Set(['Highlight', 'Underline', 'Squiggly', 'StrikeOut']);
/** Notes: their own text becomes the card. */
export const NOTE_KINDS = new Set(['FreeText', 'Text']);

/** What planning an import reads. */
export interface AnnotationImportDeps {
  store: Store;
  documents: DocumentCatalogue;
  extraction: Pick<ExtractionScheduler, 'waitForPages'>;
  pages: Pick<PageReader, 'storedPages'>;
  pool: Pick<ExtractionPool, 'annotationPages'>;
}

/** One card an annotation becomes. `rects` (PDF points, top-left): its quads, or its rectangle for a note. */
export interface PlannedAnnotationCard {
  kind: string;
  page: number;
  title: string;
  /** Markup: the page text under the quads (the excerpt); a note: its text. */
  text: string;
  excerpt: boolean;
  comment?: string;
  rects: PdfBox[];
  colorIndex: number | null;
}

export type Skipped = AnnotationSkip;

export interface AnnotationImportPlan {
  topicid: string;
  bookmd5: string;
  cards: PlannedAnnotationCard[];
  skipped: Skipped[];
  /** Annotations that match a card the set already has (an earlier import): not created again. */
  alreadyImported: number;
}

const box = (r: Rect): PdfBox => ({ x: r.x, y: r.y, width: r.w, height: r.h });
const near = (a: PdfBox, b: PdfBox) =>
  Math.abs(a.x - b.x) <= 1 &&
  Math.abs(a.y - b.y) <= 1 &&
  Math.abs(a.width - b.width) <= 1 &&
  Math.abs(a.height - b.height) <= 1;
const sameRects = (a: readonly PdfBox[], b: readonly PdfBox[]) =>
  a.length === b.length && a.every((r, i) => near(r, b[i]));

/**
 * The anchors the set already has on this book, by page: the import's key is
 * page + rectangles (each within 1 pt), derived from the cards themselves, so
 * a card deleted since comes back on the next import and nothing else does.
 */
export function existingAnchors(db: Db, topicid: string, bookmd5: string): Map<number, PdfBox[][]> {
  const rows = db.all<{ source_page: number; source_rect: string }>(
    'SELECT source_page, source_rect FROM notes WHERE topicid = ? AND source_bookmd5 = ? AND hidden = 0 AND source_rect IS NOT NULL AND source_page IS NOT NULL',
    [topicid, bookmd5],
  );
  const byPage = new Map<number, PdfBox[][]>();
  for (const r of rows) {
    const boxes = anchorBoxes(r.source_rect);
    if (boxes) byPage.set(r.source_page, [...(byPage.get(r.source_page) ?? []), boxes.rects]);
  }
  return byPage;
}

/**
 * The cards of a plan that no card of `existing` anchors yet, nor an earlier
 * card of the plan (a copy we exported holds the reader's highlight and ours
 * over the same words: one card); the others counted.
 */
export function notYetImported(
  cards: readonly PlannedAnnotationCard[],
  existing: Map<number, PdfBox[][]>,
): { fresh: PlannedAnnotationCard[]; already: number } {
  const seen = new Map([...existing].map(([page, list]) => [page, [...list]]));
  const fresh = cards.filter((c) => {
    let onPage = seen.get(c.page);
    if (!onPage) seen.set(c.page, (onPage = []));
    if (onPage.some((rects) => sameRects(rects, c.rects))) return false;
    onPage.push(c.rects); // in place: a copy per card made 500 highlights on a page cost 125,000 element copies
    return true;
  });
  return { fresh, already: cards.length - fresh.length };
}

/**
 * A comment from /Contents. Our own exports write the card's title, a blank
 * line, then its comment: the title goes back to the title. A /Contents that
 * only repeats the excerpt's first words is no comment.
 */
function titleAndComment(a: PageAnnotation, derivedTitle: string): { title: string; comment?: string } {
  const contents = a.contents.replace(/\r\n?/g, '\n').trim();
  if (!contents) return { title: derivedTitle };
  const [first, ...rest] = contents.split(/\n\n/);
  const after = rest.join('\n\n').trim();
  if (first === derivedTitle || a.author === EXPORT_AUTHOR)
    return { title: first || derivedTitle, ...(after ? { comment: after } : {}) };
  return { title: derivedTitle, comment: contents };
}

/** A note's card text; a first paragraph that is just the rest's title (as our exports write it) is not repeated. */
function noteText(contents: string): { title: string; text: string } {
  const text = contents.replace(/\r\n?/g, '\n').trim();
  const [first, ...rest] = text.split(/\n\n/);
  const body = rest.join('\n\n').trim();
  return body && first === cutTitle(body) ? { title: first, text: body } : { title: cutTitle(text), text };
}

/** One annotation's card, or why it has none. */
function cardOf(a: PageAnnotation, items: Parameters<typeof textUnderQuads>[0]): PlannedAnnotationCard | Skipped {
  const colorIndex = a.color ? nearestPaletteIndex(a.color) : null;
  if (MARKUP_KINDS.has(a.kind)) {
    const quads = a.quads.length ? a.quads : [a.rect];
    const text = textUnderQuads(items, quads);
    if (!text && !a.contents.trim())
      return {
        kind: a.kind,
        page: a.page,
        reason:
          'No text under the marked area (an image, or a page without readable text) and no note: nothing to make a card of.',
      };
    if (!text)
      return { kind: a.kind, page: a.page, ...noteText(a.contents), excerpt: false, rects: quads.map(box), colorIndex };
    return {
      kind: a.kind,
      page: a.page,
      ...titleAndComment(a, cutTitle(text)),
      text,
      excerpt: true,
      rects: quads.map(box),
      colorIndex,
    };
  }
  if (NOTE_KINDS.has(a.kind)) {
    if (!a.contents.trim()) return { kind: a.kind, page: a.page, reason: `The ${a.kind} note has no text.` };
    return { kind: a.kind, page: a.page, ...noteText(a.contents), excerpt: false, rects: [box(a.rect)], colorIndex };
  }
  if (a.kind === 'Ink') {
    return {
      kind: a.kind,
      page: a.page,
      reason: `Ink (${a.strokes ?? 0} stroke${a.strokes === 1 ? '' : 's'}): cards hold text and images, not pen strokes; the drawing stays in the PDF.`,
    };
  }
  return {
    kind: a.kind,
    page: a.page,
    reason: `${a.kind} annotations are not imported: text markup (Highlight, Underline, Squiggly, StrikeOut) and FreeText and Text notes are.`,
  };
}

const tooMany = (count: number | string) =>
  new BridgeError(
    'TOO_MANY_ANNOTATIONS',
    422,
    `The PDF has ${count} annotations to import; at most ${MAX_IMPORT_CARDS} at once. Nothing was changed.`,
    { max: MAX_IMPORT_CARDS, count },
  );

/** Reading order: page, then top to bottom, then left to right. */
const readingOrder = (a: PageAnnotation, b: PageAnnotation) =>
  a.page - b.page ||
  (a.quads[0] ?? a.rect).y - (b.quads[0] ?? b.rect).y ||
  (a.quads[0] ?? a.rect).x - (b.quads[0] ?? b.rect).x;

/**
 * Reads the PDF's annotations (pdf.js, in a worker) and turns each into a
 * planned card, writing nothing. 404 DOCUMENT_NOT_FOUND / TOPIC_NOT_FOUND;
 * 422 NO_ANNOTATIONS when the PDF has none a person wrote; the markup pages
 * must be extracted (409 EXTRACTION_IN_PROGRESS while they are not).
 */
export async function planAnnotationImport(
  deps: AnnotationImportDeps,
  bookmd5: string,
  topicid: string,
): Promise<AnnotationImportPlan> {
  const row = deps.documents.get(bookmd5);
  assertStudySet(deps.store, topicid);
  deps.documents.assertFile(row);
  const all = Array.from({ length: row.page_count }, (_, i) => i + 1);
  const existing = existingAnchors(deps.store, topicid, bookmd5);
  // Read a page at a time; past what could still be imported (MAX_IMPORT_CARDS beyond the cards the set already
  // has here) pages are still read, to count, but their annotations are not kept.
  const keep = MAX_IMPORT_CARDS + [...existing.values()].reduce((n, l) => n + l.length, 0);
  const annots: PageAnnotation[] = [];
  const skipped: Skipped[] = [];
  let cardKinds = 0;
  let dropped = 0;
  await readAnnotationPages(deps.pool, deps.documents.source(row), all, (p) => {
    cardKinds += p.annotations.filter((a) => MARKUP_KINDS.has(a.kind) || NOTE_KINDS.has(a.kind)).length;
    if (annots.length < keep) annots.push(...p.annotations);
    else dropped += p.annotations.length;
    skipped.push(...p.skipped);
  });
  if (cardKinds > keep) throw tooMany(`more than ${keep}`);
  if (dropped)
    skipped.push({ kind: 'Annotations', page: row.page_count, reason: `${dropped} more annotations were not listed.` });
  annots.sort(readingOrder);
  if (!annots.length && !skipped.length) {
    throw new BridgeError(
      'NO_ANNOTATIONS',
      422,
      `${row.filename} has no annotations (highlights, underlines, notes or ink) to import. Nothing was changed.`,
      { bookmd5, pageCount: row.page_count },
    );
  }
  const textPages = [...new Set(annots.filter((a) => MARKUP_KINDS.has(a.kind)).map((a) => a.page))];
  await deps.extraction.waitForPages(row, textPages);
  const items = new Map<number, Parameters<typeof textUnderQuads>[0]>();
  for (const p of textPages) {
    const stored = (await deps.pages.storedPages(bookmd5, p, p))[0];
    items.set(p, stored && stored.ocr !== 2 ? stored.items : []);
  }
  const cards: PlannedAnnotationCard[] = [];
  for (const [i, a] of annots.entries()) {
    // The loop is served every PLAN_SLICE annotations: 5,000 take 40-150 ms here on a busy machine.
    if (i % PLAN_SLICE === PLAN_SLICE - 1) await new Promise((r) => setImmediate(r));
    const c = cardOf(a, items.get(a.page) ?? []);
    if ('reason' in c) skipped.push(c);
    else cards.push(c);
  }
  const { fresh, already } = notYetImported(cards, existing);
  if (fresh.length > MAX_IMPORT_CARDS) throw tooMany(fresh.length);
  return { topicid, bookmd5, cards: fresh, skipped, alreadyImported: already };
}
