import type { PdfDocument } from './pdfjsLoader';
import type { Rect } from './pdfTypes';

/**
 * An annotation a person (or their reader app) wrote on a page, as pdf.js
 * reads it, in the pipeline's coordinates: page points at scale 1, top-left
 * origin (the page's viewport, so rotation and crop box are applied).
 */
export interface PageAnnotation {
  page: number;
  /** The /Subtype: Highlight, Underline, Squiggly, StrikeOut, FreeText, Text, Ink, Square… */
  kind: string;
  rect: Rect;
  /** Text markup: one box per quadrilateral (line), in /QuadPoints order; empty for the other kinds. */
  quads: Rect[];
  /** /C as RGB 0..255; absent when the annotation has none. */
  color?: [number, number, number];
  /** /Contents (what a popup shows). */
  contents: string;
  /** /T: who wrote it (readers put the user's name here). */
  author: string;
  /** Ink: number of strokes. */
  strokes?: number;
}

/** Not notes a person wrote: links, form fields, and the popups that only show their parent's /Contents. */
const NOT_NOTES = new Set(['Link', 'Widget', 'Popup']);

interface RawAnnotation {
  subtype?: string;
  rect?: number[] | null;
  quadPoints?: ArrayLike<number> | null;
  color?: ArrayLike<number> | null;
  contentsObj?: { str?: string } | null;
  titleObj?: { str?: string } | null;
  inkLists?: ArrayLike<number>[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The axis-aligned box of viewport points. */
function boxOf(points: number[][]): Rect {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x: round2(x), y: round2(y), w: round2(Math.max(...xs) - x), h: round2(Math.max(...ys) - y) };
}

/**
 * Most annotations read from one page. A reader's densely marked page has a
 * few dozen (a highlight and a note per line is ~100); past this the page is
 * machine-made, and its annotations would only bury the set's cards.
 */
export const MAX_ANNOTATIONS_PER_PAGE = 500;
/** Longest /Contents imported: what a card's text holds (POST /notes/{id}/texts accepts 100,000 characters). */
export const MAX_CONTENTS_CHARS = 100_000;

/** An annotation (or, kind 'Annotations', a page's worth of them) the import leaves out, and why. */
export interface AnnotationSkip {
  kind: string;
  page: number;
  reason: string;
}

/** One page's annotations as the import reads them: at most MAX_ANNOTATIONS_PER_PAGE, the others skipped. */
export interface PageAnnotations {
  page: number;
  annotations: PageAnnotation[];
  skipped: AnnotationSkip[];
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * The annotations of one page, in the order pdf.js lists them. Links, form
 * fields and popups are left out; an over-long /Contents skips its
 * annotation, and past MAX_ANNOTATIONS_PER_PAGE the page's rest is skipped
 * with one entry saying how many. `unprinted` (from annotationScan.ts): the
 * pages that need pdf.js's display intent; the others are read with the
 * cheaper print intent.
 */
export async function readPageAnnotations(
  doc: PdfDocument,
  pageNo: number,
  unprinted?: Set<number>,
): Promise<PageAnnotations> {
  const out: PageAnnotations = { page: pageNo, annotations: [], skipped: [] };
  const page = await doc.getPage(pageNo);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const toView = (x: number, y: number) => viewport.convertToViewportPoint(x, y) as number[];
    const intent = !unprinted || unprinted.has(pageNo) ? 'display' : 'print';
    const raws = (await page.getAnnotations({ intent })) as RawAnnotation[];
    let over = 0;
    let listed = 0;
    for (const a of raws) {
      if (!a.subtype || NOT_NOTES.has(a.subtype) || !a.rect) continue;
      listed++;
      if (out.annotations.length >= MAX_ANNOTATIONS_PER_PAGE) {
        over++;
        continue;
      }
      const contents = a.contentsObj?.str ?? '';
      if (contents.length > MAX_CONTENTS_CHARS) {
        out.skipped.push({
          kind: a.subtype,
          page: pageNo,
          reason: `Its note (/Contents) is ${fmt(contents.length)} characters; a card holds at most ${fmt(MAX_CONTENTS_CHARS)}, so it was not imported.`,
        });
        continue;
      }
      out.annotations.push(annotationOf(a, pageNo, contents, toView));
    }
    if (over)
      out.skipped.push({
        kind: 'Annotations',
        page: pageNo,
        reason: `The page has ${fmt(listed)} annotations; the first ${fmt(MAX_ANNOTATIONS_PER_PAGE)} were read and the other ${fmt(over)} skipped: at most ${fmt(MAX_ANNOTATIONS_PER_PAGE)} annotations a page are imported.`,
      });
  } finally {
    page.cleanup();
  }
  return out;
}

/** One annotation of pdf.js in the pipeline's coordinates. */
function annotationOf(
  a: RawAnnotation,
  pageNo: number,
  contents: string,
  toView: (x: number, y: number) => number[],
): PageAnnotation {
  const [x1, y1, x2, y2] = a.rect!;
  const quads: Rect[] = [];
  const q = a.quadPoints;
  for (let i = 0; q && i + 7 < q.length; i += 8) {
    quads.push(boxOf([0, 2, 4, 6].map((k) => toView(q[i + k], q[i + k + 1]))));
  }
  const c = a.color;
  return {
    page: pageNo,
    kind: a.subtype!,
    rect: boxOf([toView(x1, y1), toView(x2, y2)]),
    quads,
    ...(c && c.length >= 3 ? { color: [c[0], c[1], c[2]] as [number, number, number] } : {}),
    contents,
    // Only compared with our exports' author: a long one is no author of ours.
    author: (a.titleObj?.str ?? '').slice(0, 1000),
    ...(a.subtype === 'Ink' ? { strokes: a.inkLists?.length ?? 0 } : {}),
  };
}

/** The annotations of the given pages (1-based; out-of-range ones skipped), page by page, within the caps above. */
export async function readAnnotations(
  doc: PdfDocument,
  pages: readonly number[],
  unprinted?: Set<number>,
): Promise<PageAnnotation[]> {
  const out: PageAnnotation[] = [];
  for (const pageNo of pages) {
    if (pageNo < 1 || pageNo > doc.numPages) continue;
    out.push(...(await readPageAnnotations(doc, pageNo, unprinted)).annotations);
  }
  return out;
}
