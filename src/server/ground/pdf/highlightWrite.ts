import type { PDFArray, PDFDocument, PDFPage, PDFString } from 'pdf-lib';
import { pdfLib } from './pdfLib';
import type { Rect } from './pdfTypes';

/** A Highlight annotation to add: rectangles in page points, top-left origin (as everywhere), one per line. */
export interface HighlightAnnot {
  page: number;
  quads: Rect[];
  /** RGB 0..1. */
  color: [number, number, number];
  /** /Contents: what a reader's popup shows. */
  contents: string;
  /** /NM: unique within the page (the card's id). */
  name?: string;
}

/** Who wrote the annotations (/T): import reads its own exports back by it. */
export const EXPORT_AUTHOR = 'Study Bridge';

type Matrix = [number, number, number, number, number, number];

/**
 * The transform pdf.js's viewport applies at scale 1 (user space → top-left
 * page points) for a page's crop box and rotation, so what we write lands where
 * the reading side (pdfAnnotations.ts, the page text) measured it.
 */
export function viewportTransform(view: [number, number, number, number], rotate: number): Matrix {
  const [x0, y0, x1, y1] = view;
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const r = ((rotate % 360) + 360) % 360;
  const [a, b, c, d] = r === 90 ? [0, 1, 1, 0] : r === 180 ? [-1, 0, 0, 1] : r === 270 ? [0, -1, -1, 0] : [1, 0, 0, -1];
  const [ox, oy] = a === 0 ? [Math.abs(cy - y0), Math.abs(cx - x0)] : [Math.abs(cx - x0), Math.abs(cy - y0)];
  return [a, b, c, d, ox - a * cx - c * cy, oy - b * cx - d * cy];
}

/** The inverse map: top-left page point → PDF user space. */
function inverse([a, b, c, d, e, f]: Matrix): (x: number, y: number) => [number, number] {
  const det = a * d - b * c;
  return (x, y) => [(d * (x - e) - c * (y - f)) / det, (-b * (x - e) + a * (y - f)) / det];
}

const fmt = (n: number) => (Math.round(n * 1000) / 1000).toString();

/** The four corners of a box in user space, in /QuadPoints order: top-left, top-right, bottom-left, bottom-right (as seen). */
function quadOf(r: Rect, toUser: (x: number, y: number) => [number, number]): number[] {
  return [toUser(r.x, r.y), toUser(r.x + r.w, r.y), toUser(r.x, r.y + r.h), toUser(r.x + r.w, r.y + r.h)].flat();
}

/** The page's annotation array, created (or made direct-writable) as needed. */
function annotsOf(doc: PDFDocument, page: PDFPage): PDFArray {
  const { PDFArray, PDFName } = pdfLib();
  const existing = page.node.lookup(PDFName.of('Annots'));
  if (existing instanceof PDFArray) return existing;
  const arr = doc.context.obj([]);
  page.node.set(PDFName.of('Annots'), arr);
  return arr;
}

/**
 * Adds one standard Highlight annotation per entry: /QuadPoints, /C, /Contents,
 * and an appearance stream (/AP /N: the quads filled in Multiply blend, so the
 * text shows through) for readers that draw only appearances.
 */
function addHighlight(
  doc: PDFDocument,
  page: PDFPage,
  h: HighlightAnnot,
  toUser: (x: number, y: number) => [number, number],
  stamp: PDFString,
): void {
  const { PDFHexString, PDFName } = pdfLib();
  const quads = h.quads.map((q) => quadOf(q, toUser));
  const xs = quads.flatMap((q) => [q[0], q[2], q[4], q[6]]);
  const ys = quads.flatMap((q) => [q[1], q[3], q[5], q[7]]);
  const rect = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  const [r, g, b] = h.color;
  const ops = [`/GS0 gs ${fmt(r)} ${fmt(g)} ${fmt(b)} rg`];
  for (const q of quads)
    ops.push(
      `${fmt(q[0])} ${fmt(q[1])} m ${fmt(q[2])} ${fmt(q[3])} l ${fmt(q[6])} ${fmt(q[7])} l ${fmt(q[4])} ${fmt(q[5])} l h f`,
    );
  const ap = doc.context.stream(ops.join('\n'), {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: rect,
    Resources: { ExtGState: { GS0: { Type: 'ExtGState', BM: 'Multiply', ca: 1, CA: 1 } } },
  });
  const annot = doc.context.obj({
    Type: 'Annot',
    Subtype: 'Highlight',
    Rect: rect,
    QuadPoints: quads.flat(),
    C: [r, g, b],
    F: 4, // print
    T: PDFHexString.fromText(EXPORT_AUTHOR),
    Contents: PDFHexString.fromText(h.contents),
    M: stamp,
    AP: { N: doc.context.register(ap) },
    P: page.ref,
  });
  if (h.name) annot.set(PDFName.of('NM'), PDFHexString.fromText(h.name));
  annotsOf(doc, page).push(doc.context.register(annot));
}

/**
 * A copy of the PDF with the highlights added as annotations; the page
 * content is untouched and annotations already there are kept.
 */
export async function buildAnnotatedPdf(
  source: Uint8Array,
  highlights: readonly HighlightAnnot[],
): Promise<Uint8Array> {
  const { PDFDocument, PDFString } = pdfLib();
  const doc = await PDFDocument.load(source, { ignoreEncryption: true, updateMetadata: false });
  const pages = doc.getPages();
  const stamp = PDFString.fromDate(new Date());
  const byPage = new Map<number, HighlightAnnot[]>();
  for (const h of highlights)
    if (h.quads.length && h.page >= 1 && h.page <= pages.length) byPage.set(h.page, [...(byPage.get(h.page) ?? []), h]);
  for (const [pageNo, list] of byPage) {
    const page = pages[pageNo - 1];
    const box = page.getCropBox();
    const toUser = inverse(
      viewportTransform([box.x, box.y, box.x + box.width, box.y + box.height], page.getRotation().angle),
    );
    for (const h of list) addHighlight(doc, page, h, toUser, stamp);
  }
  return doc.save({ useObjectStreams: true });
}
