/** The rectangles of a card's anchor as stored in notes.source_rect (PDF points, top-left origin). */

export interface PdfBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Tolerates w/h spellings (as export does) so any stored rectangle reads back. */
const box = (r: PdfBox & { w?: number; h?: number }): PdfBox => ({
  x: r.x,
  y: r.y,
  width: r.width ?? r.w,
  height: r.height ?? r.h,
});

/**
 * The notes.source_rect column: the union's JSON as it always was, with
 * `rects` added when there are several, so old rows and old readers of the
 * column (crop, export) keep working.
 */
export function anchorJson(rect: PdfBox, rects?: readonly PdfBox[]): string {
  return JSON.stringify(rects && rects.length > 1 ? { ...box(rect), rects: rects.map(box) } : box(rect));
}

/** The rectangles of a notes.source_rect value. */
export function anchorBoxes(json: string | null): { rect: PdfBox; rects: PdfBox[] } | null {
  if (!json) return null;
  const r = JSON.parse(json) as PdfBox & { rects?: PdfBox[] };
  return { rect: box(r), rects: Array.isArray(r.rects) && r.rects.length ? r.rects.map(box) : [box(r)] };
}
