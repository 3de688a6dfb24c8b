import { pdfLib } from './pdfLib';
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

const PRINT = 4;
const HIDDEN = 2;

/**
 * Pages holding a note a person wrote without the Print flag, from a quick
 * pdf-lib read of each page's /Annots (undefined when pdf-lib cannot read the
 * file). pdf.js's "print" intent lists annotations without reading the page's
 * text, its "display" intent reads the text under every markup annotation,
 * a page's worth of work each, and only it lists unprinted ones: so display
 * is used only on these pages.
 */
export async function unprintedPages(bytes: Uint8Array): Promise<Set<number> | undefined> {
  try {
    const { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber } = pdfLib();
    const doc = await PDFDocument.load(bytes, {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: false,
    });
    const pages = new Set<number>();
    doc.getPages().forEach((page, i) => {
      const annots = page.node.lookup(PDFName.of('Annots'));
      if (!(annots instanceof PDFArray)) return;
      for (let k = 0; k < annots.size(); k++) {
        const a = annots.lookup(k);
        if (!(a instanceof PDFDict)) continue;
        const sub = a.lookup(PDFName.of('Subtype'));
        if (sub instanceof PDFName && NOT_NOTES.has(sub.decodeText())) continue;
        const f = a.lookup(PDFName.of('F'));
        const flags = f instanceof PDFNumber ? f.asNumber() : 0;
        if (!(flags & PRINT) && !(flags & HIDDEN)) {
          pages.add(i + 1);
          return;
        }
      }
    });
    return pages;
  } catch {
    return undefined;
  }
}

/**
 * The annotations of the given pages (1-based; out-of-range ones skipped),
 * page by page in the order pdf.js lists them. Links, form fields and popups
 * are left out. `unprinted` (from unprintedPages): the pages that need
 * pdf.js's display intent; the others are read with the cheaper print intent.
 */
export async function readAnnotations(
  doc: PdfDocument,
  pages: readonly number[],
  unprinted?: Set<number>,
): Promise<PageAnnotation[]> {
  const out: PageAnnotation[] = [];
  for (const pageNo of pages) {
    if (pageNo < 1 || pageNo > doc.numPages) continue;
    const page = await doc.getPage(pageNo);
    try {
      const viewport = page.getViewport({ scale: 1 });
      const toView = (x: number, y: number) => viewport.convertToViewportPoint(x, y) as number[];
      const intent = !unprinted || unprinted.has(pageNo) ? 'display' : 'print';
      const raws = (await page.getAnnotations({ intent })) as RawAnnotation[];
      for (const a of raws) {
        if (!a.subtype || NOT_NOTES.has(a.subtype) || !a.rect) continue;
        const [x1, y1, x2, y2] = a.rect;
        const quads: Rect[] = [];
        const q = a.quadPoints;
        for (let i = 0; q && i + 7 < q.length; i += 8) {
          quads.push(boxOf([0, 2, 4, 6].map((k) => toView(q[i + k], q[i + k + 1]))));
        }
        const c = a.color;
        out.push({
          page: pageNo,
          kind: a.subtype,
          rect: boxOf([toView(x1, y1), toView(x2, y2)]),
          quads,
          ...(c && c.length >= 3 ? { color: [c[0], c[1], c[2]] as [number, number, number] } : {}),
          contents: a.contentsObj?.str ?? '',
          author: a.titleObj?.str ?? '',
          ...(a.subtype === 'Ink' ? { strokes: a.inkLists?.length ?? 0 } : {}),
        });
      }
    } finally {
      page.cleanup();
    }
  }
  return out;
}
