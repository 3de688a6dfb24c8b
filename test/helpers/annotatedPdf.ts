/**
 * PDFs with real annotations for the annotation tests, written with pdf-lib's
 * low-level objects (not the bridge's writer), and pdf.js readings of them:
 * the independent side the import is checked against.
 */
import { PDFDocument, PDFHexString, PDFName, type PDFRef } from 'pdf-lib';
import { openPdf } from '../../src/server/pdf/pdfjsLoader';

/** A box in top-left page points (the bridge's coordinates). */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One text run of a page as pdf.js reads it (getTextContent), with its baseline box in top-left points. */
export interface PdfJsItem {
  str: string;
  box: Box;
}

/** pdf.js's text items of a page: boxes from font size and width, for unrotated pages with the origin at 0,0. */
export async function pdfJsItems(bytes: Uint8Array, pageNo: number): Promise<{ items: PdfJsItem[]; height: number }> {
  return (await pdfJsPagesItems(bytes, [pageNo]))[0];
}

/** pdfJsItems of several pages, the document opened once. */
export async function pdfJsPagesItems(bytes: Uint8Array, pages: readonly number[]): Promise<{ items: PdfJsItem[]; height: number }[]> {
  const doc = await openPdf(bytes);
  try {
    return await Promise.all(pages.map((p) => itemsOf(doc, p)));
  } finally {
    await doc.loadingTask.destroy();
  }
}

async function itemsOf(doc: Awaited<ReturnType<typeof openPdf>>, pageNo: number): Promise<{ items: PdfJsItem[]; height: number }> {
  const page = await doc.getPage(pageNo);
  const [, , , top] = page.view;
  const tc = await page.getTextContent();
  const items = (tc.items as Array<{ str: string; transform: number[]; width: number }>)
    .filter((i) => typeof i.str === 'string' && i.str.trim())
    .map((i) => {
      const size = Math.hypot(i.transform[2], i.transform[3]);
      // From a little above the cap height to a little below the baseline, as readers draw a highlight.
      return { str: i.str, box: { x: i.transform[4], y: top - i.transform[5] - size * 0.85, w: i.width, h: size * 1.1 } };
    });
  return { items, height: top };
}

export type AnnotSpec =
  | { kind: 'Highlight' | 'Underline' | 'Squiggly' | 'StrikeOut'; quads: Box[]; color: [number, number, number]; contents?: string; popup?: boolean }
  | { kind: 'FreeText' | 'Text'; rect: Box; contents: string; color?: [number, number, number] }
  | { kind: 'Ink'; strokes: Array<Array<[number, number]>>; color: [number, number, number] };

/** A copy of `source` with the annotations added to page `pageNo` (unrotated, origin 0,0). */
export async function withAnnotations(source: Uint8Array, pageNo: number, specs: readonly AnnotSpec[]): Promise<Uint8Array> {
  return withAnnotationsOnPages(source, new Map([[pageNo, specs]]));
}

/** A copy of `source` with annotations added to several pages. */
export async function withAnnotationsOnPages(source: Uint8Array, byPage: ReadonlyMap<number, readonly AnnotSpec[]>): Promise<Uint8Array> {
  const doc = await PDFDocument.load(source, { updateMetadata: false });
  for (const [pageNo, specs] of byPage) annotatePage(doc, pageNo, specs);
  return doc.save();
}

function annotatePage(doc: PDFDocument, pageNo: number, specs: readonly AnnotSpec[]): void {
  const page = doc.getPage(pageNo - 1);
  const top = page.getMediaBox().height + page.getMediaBox().y;
  const flip = (b: Box) => [b.x, top - b.y - b.h, b.x + b.w, top - b.y];
  const refs: PDFRef[] = [];
  for (const s of specs) {
    if ('rect' in s) {
      const dict: Record<string, unknown> = { Type: 'Annot', Subtype: s.kind, Rect: flip(s.rect), Contents: PDFHexString.fromText(s.contents), F: 4 };
      if (s.kind === 'FreeText') dict.DA = PDFHexString.fromText('/Helv 10 Tf 0 g');
      if (s.color) dict.C = s.color;
      refs.push(doc.context.register(doc.context.obj(dict as never)));
      continue;
    }
    if ('strokes' in s) {
      const pts = s.strokes.flat();
      const xs = pts.map((p) => p[0]);
      const ys = pts.map((p) => top - p[1]);
      const ink = s.strokes.map((st) => st.flatMap(([x, y]) => [x, top - y]));
      refs.push(doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Ink', Rect: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)], InkList: ink, C: s.color, F: 4 })));
      continue;
    }
    // QuadPoints as Acrobat writes them: top-left, top-right, bottom-left, bottom-right.
    const quadPoints = s.quads.flatMap((q) => [q.x, top - q.y, q.x + q.w, top - q.y, q.x, top - q.y - q.h, q.x + q.w, top - q.y - q.h]);
    const xs = s.quads.flatMap((q) => [q.x, q.x + q.w]);
    const ys = s.quads.flatMap((q) => [top - q.y, top - q.y - q.h]);
    const rect = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    const dict = doc.context.obj({ Type: 'Annot', Subtype: s.kind, Rect: rect, QuadPoints: quadPoints, C: s.color, F: 4, T: PDFHexString.fromText('A. Reader') });
    if (s.contents) dict.set(PDFName.of('Contents'), PDFHexString.fromText(s.contents));
    const ref = doc.context.register(dict);
    refs.push(ref);
    if (s.popup) {
      const popup = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Popup', Rect: [rect[2] + 10, rect[1], rect[2] + 150, rect[1] + 80], Parent: ref, Open: false }));
      dict.set(PDFName.of('Popup'), popup);
      refs.push(popup);
    }
  }
  page.node.set(PDFName.of('Annots'), doc.context.obj(refs));
}

/** What pdf.js reads of a page's annotations: kind, quads as top-left boxes, the text it finds under them, contents, colour. */
export interface PdfJsAnnotation {
  kind: string;
  quads: Box[];
  overlaidText?: string;
  contents: string;
  color?: number[];
}

export async function pdfJsAnnotations(bytes: Uint8Array, pageNo: number): Promise<PdfJsAnnotation[]> {
  const doc = await openPdf(bytes);
  try {
    const page = await doc.getPage(pageNo);
    const vp = page.getViewport({ scale: 1 });
    const anns = (await page.getAnnotations()) as Array<{ subtype: string; quadPoints?: ArrayLike<number>; overlaidText?: string; contentsObj?: { str: string }; color?: ArrayLike<number> }>;
    return anns.map((a) => {
      const quads: Box[] = [];
      const q = a.quadPoints;
      for (let i = 0; q && i + 7 < q.length; i += 8) {
        const pts = [0, 2, 4, 6].map((k) => vp.convertToViewportPoint(q[i + k], q[i + k + 1]) as number[]);
        const x = Math.min(...pts.map((p) => p[0]));
        const y = Math.min(...pts.map((p) => p[1]));
        quads.push({ x, y, w: Math.max(...pts.map((p) => p[0])) - x, h: Math.max(...pts.map((p) => p[1])) - y });
      }
      return { kind: a.subtype, quads, overlaidText: a.overlaidText, contents: a.contentsObj?.str ?? '', color: a.color ? Array.from(a.color) : undefined };
    });
  } finally {
    await doc.loadingTask.destroy();
  }
}

/** Letters and digits, lower case: how two readings of the same text are compared (spacing and punctuation differ by tool). */
export const letters = (s: string) => s.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
