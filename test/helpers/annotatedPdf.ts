/**
 * pdf.js readings for the annotation tests (text items, annotations): the
 * independent side the import is checked against. The writer of annotated
 * PDFs is annotatedPdfWrite.ts.
 */
import type { Box } from './annotatedPdfWrite';

export { withAnnotations, withAnnotationsOnPages, type AnnotSpec, type Box } from './annotatedPdfWrite';
import { openPdf } from '../../src/server/ground/pdf/pdfjsLoader';

/** One text run of a page as pdf.js reads it (getTextContent), with its baseline box in top-left points. */
export interface PdfJsItem {
  str: string;
  box: Box;
  /** Written left to right on the baseline: `box` is only that run's area when it is (a rotated run's box covers other ground). */
  upright: boolean;
}

/** pdf.js's text items of a page: boxes from font size and width, for unrotated pages with the origin at 0,0. */
export async function pdfJsItems(bytes: Uint8Array, pageNo: number): Promise<{ items: PdfJsItem[]; height: number }> {
  return (await pdfJsPagesItems(bytes, [pageNo]))[0];
}

/** pdfJsItems of several pages, the document opened once. */
export async function pdfJsPagesItems(
  bytes: Uint8Array,
  pages: readonly number[],
): Promise<{ items: PdfJsItem[]; height: number }[]> {
  const doc = await openPdf(bytes);
  try {
    return await Promise.all(pages.map((p) => itemsOf(doc, p)));
  } finally {
    await doc.loadingTask.destroy();
  }
}

async function itemsOf(
  doc: Awaited<ReturnType<typeof openPdf>>,
  pageNo: number,
): Promise<{ items: PdfJsItem[]; height: number }> {
  const page = await doc.getPage(pageNo);
  const [, , , top] = page.view;
  const tc = await page.getTextContent();
  const items = (tc.items as Array<{ str: string; transform: number[]; width: number }>)
    .filter((i) => typeof i.str === 'string' && i.str.trim())
    .map((i) => {
      const size = Math.hypot(i.transform[2], i.transform[3]);
      // From a little above the cap height to a little below the baseline, as readers draw a highlight.
      return {
        str: i.str,
        box: { x: i.transform[4], y: top - i.transform[5] - size * 0.85, w: i.width, h: size * 1.1 },
        upright: i.transform[1] === 0 && i.transform[2] === 0 && i.transform[0] > 0,
      };
    });
  return { items, height: top };
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
    const anns = (await page.getAnnotations()) as Array<{
      subtype: string;
      quadPoints?: ArrayLike<number>;
      overlaidText?: string;
      contentsObj?: { str: string };
      color?: ArrayLike<number>;
    }>;
    return anns.map((a) => {
      const quads: Box[] = [];
      const q = a.quadPoints;
      for (let i = 0; q && i + 7 < q.length; i += 8) {
        const pts = [0, 2, 4, 6].map((k) => vp.convertToViewportPoint(q[i + k], q[i + k + 1]) as number[]);
        const x = Math.min(...pts.map((p) => p[0]));
        const y = Math.min(...pts.map((p) => p[1]));
        quads.push({ x, y, w: Math.max(...pts.map((p) => p[0])) - x, h: Math.max(...pts.map((p) => p[1])) - y });
      }
      return {
        kind: a.subtype,
        quads,
        overlaidText: a.overlaidText,
        contents: a.contentsObj?.str ?? '',
        color: a.color ? Array.from(a.color) : undefined,
      };
    });
  } finally {
    await doc.loadingTask.destroy();
  }
}

/** Letters and digits, lower case: how two readings of the same text are compared (spacing and punctuation differ by tool). */
export const letters = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
