import type { NoteRow } from './noteRows';

export interface PdfBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A card's link to the page it was excerpted from (rects in PDF points, top-left origin, as locate answers). */
export interface SourceAnchor {
  hasExcerpt: boolean;
  bookmd5: string | null;
  page: number | null;
  /** The union of `rects` (what clients that know one box read). */
  rect: PdfBox | null;
  /** One per line or fragment of the excerpt; [rect] for cards anchored before there were several. */
  rects: PdfBox[];
}

/** Tolerates w/h spellings (as export does) so any stored rectangle reads back. */
const box = (r: PdfBox & { w?: number; h?: number }): PdfBox => ({ x: r.x, y: r.y, width: r.width ?? r.w, height: r.height ?? r.h });

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

/**
 * hasExcerpt is true when the card still points at a source page, or when a
 * text entry is still an excerpt: editing an excerpt's text detaches the text
 * but keeps the source link, so the page alone decides it then.
 */
export function sourceAnchorOf(n: Pick<NoteRow, 'source_bookmd5' | 'source_page' | 'source_rect'>, hasExcerptText: boolean): SourceAnchor {
  const boxes = anchorBoxes(n.source_rect);
  return {
    hasExcerpt: n.source_bookmd5 !== null || hasExcerptText,
    bookmd5: n.source_bookmd5,
    page: n.source_page,
    rect: boxes?.rect ?? null,
    rects: boxes?.rects ?? [],
  };
}

/** The first `max` characters (code points, so a surrogate pair is never cut), whitespace runs as one space, no trailing space. */
export function cutTitle(s: string, max = 64): string {
  if (s.length <= max && !/\s\s|[^\S ]|^ | $/.test(s)) return s; // the common case, without allocating
  const chars = Array.from(s.replace(/\s+/g, ' ').trim());
  return chars.length > max ? chars.slice(0, max).join('').trimEnd() : chars.join('');
}
