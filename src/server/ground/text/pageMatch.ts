import type { Rect, TextItem } from '../pdf/pdfTypes';
import { align } from './align';
import type { FoldedText } from './fold';
import { rectsOfKeys, textOfKeys, unionOf } from './keySpan';
import type { KeyToken } from './tokenize';

/** A quote placed on one page: its score, the key ranges it covers and their rectangles. */
export interface PageMatch {
  score: number;
  /** Key ranges [start, end) in quote order: one per matched token, or one for an exact match. */
  ranges: [number, number][];
  /** One per line or fragment; empty when the page has no positions. */
  rects: Rect[];
  rect?: Rect;
}

/** The exact key range [start, end) as a match (score 1); `quote` adds the punctuation it begins or ends with to the rectangles. */
export function exactMatch(
  items: readonly TextItem[],
  f: FoldedText,
  start: number,
  end: number,
  quote?: string,
): PageMatch {
  const ranges: [number, number][] = [[start, end]];
  const rects = rectsOfKeys(items, f, ranges, quote);
  return { score: 1, ranges, rects, rect: unionOf(rects) };
}

/** The best alignment of the quote's tokens on the page's tokens (undefined when none lines up). */
export function alignedMatch(
  items: readonly TextItem[],
  f: FoldedText,
  page: readonly KeyToken[],
  quote: readonly KeyToken[],
  quoteText?: string,
): PageMatch | undefined {
  const a = align(quote, page);
  if (!a) return undefined;
  const ranges = a.matched.map((j): [number, number] => [page[j].start, page[j].end]);
  const rects = rectsOfKeys(items, f, ranges, quoteText);
  return { score: a.score, ranges, rects, rect: unionOf(rects) };
}

/**
 * The page's own text of a match: each run of ranges that goes forward in
 * the page, from its first to its last key char, runs joined by a space.
 */
export function matchedText(items: readonly TextItem[], f: FoldedText, m: PageMatch, quote: string): string {
  const parts: string[] = [];
  let i = 0;
  while (i < m.ranges.length) {
    let j = i;
    while (j + 1 < m.ranges.length && m.ranges[j + 1][0] >= m.ranges[j][1]) j++;
    parts.push(textOfKeys(items, f, m.ranges[i][0], m.ranges[j][1] - 1, quote));
    i = j + 1;
  }
  return parts.join(' ');
}
