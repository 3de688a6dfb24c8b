import { anchorBoxes, type PdfBox } from './anchorRects';
import type { NoteRow } from './noteRows';

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

/**
 * hasExcerpt is true when the card still points at a source page, or when a
 * text entry is still an excerpt: editing an excerpt's text detaches the text
 * but keeps the source link, so the page alone decides it then.
 */
export function sourceAnchorOf(
  n: Pick<NoteRow, 'source_bookmd5' | 'source_page' | 'source_rect'>,
  hasExcerptText: boolean,
): SourceAnchor {
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
