import type { Rect, TextItem } from '../pdf/pdfTypes';
import { ACCEPT_SCORE } from './align';
import { foldItems, foldKey, keyString, type FoldedText } from './fold';
import { pageRect } from './glyphBoxes';
import { alignedMatch, exactMatch, matchedText, type PageMatch } from './pageMatch';
import { keyTokens, quoteTokens } from './tokenize';

export interface LocateResult {
  found: boolean;
  /** `no_match` or `page_unreadable` when not found. */
  status: 'found' | 'no_match' | 'page_unreadable';
  matchedText?: string;
  /** 0..1: the alignment score (1 for a verbatim quote). */
  score: number;
  /** Union of `rects`. */
  rect?: Rect;
  /** One rectangle per line or fragment of the match. */
  rects?: Rect[];
  /** Kept as the reference app names it; the matcher is a token alignment. */
  algorithm: 'approximate_substring';
}

/** Longest quote aligned, in tokens (a page is a few hundred tokens; the alignment is their product). */
const MAX_TOKENS = 400;
/** Verbatim places of one quote on a page weighed against a `near` box (a short quote may stand many times). */
const MAX_PLACES = 64;
/** Items this close to a `near` box are aligned first (a selection box and the glyphs differ by a few points). */
const NEAR_MARGIN = 4;

/**
 * Finds `text` on one page's items: an exact key match, else the token
 * alignment (same folding and matcher as bundle anchoring). Found when the
 * score is at least `minScore`. `near` (the reader's selection box) decides
 * where the quote stands on the page when it stands in several places: the
 * verbatim place that overlaps it most, else the alignment among the items
 * around it before the whole page's.
 */
export function locateText(
  items: readonly TextItem[],
  text: string,
  minScore = ACCEPT_SCORE,
  near?: Rect,
): LocateResult {
  const algorithm = 'approximate_substring' as const;
  const page = foldItems(items);
  if (!page.length) return { found: false, status: 'page_unreadable', score: 0, algorithm };
  const q = foldKey(text);
  if (!q.length) return { found: false, status: 'no_match', score: 0, algorithm };
  const m = bestMatch(items, page, q, text, minScore, near);
  if (!m || m.score < minScore) return { found: false, status: 'no_match', score: m?.score ?? 0, algorithm };
  return {
    found: true,
    status: 'found',
    matchedText: matchedText(items, page, m, text),
    score: m.score,
    ...(m.rect ? { rect: m.rect, rects: m.rects } : {}),
    algorithm,
  };
}

function bestMatch(
  items: readonly TextItem[],
  page: FoldedText,
  q: string,
  text: string,
  minScore: number,
  near: Rect | undefined,
): PageMatch | undefined {
  const key = keyString(page);
  const places: PageMatch[] = [];
  for (let at = key.indexOf(q); at >= 0 && places.length < (near ? MAX_PLACES : 1); at = key.indexOf(q, at + 1))
    places.push(exactMatch(items, page, at, at + q.length, text));
  if (places.length) return near ? nearest(places, near) : places[0];
  const quote = quoteTokens(text).slice(0, MAX_TOKENS);
  if (near) {
    const [from, to] = keysNear(items, page, near);
    const m = to > from ? alignedMatch(items, page, keyTokens(items, page, from, to), quote, text) : undefined;
    if (m && m.score >= minScore) return m;
  }
  return alignedMatch(items, page, keyTokens(items, page), quote, text);
}

const area = (r: Rect) => Math.max(0, r.w) * Math.max(0, r.h);
function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** The place whose rectangles overlap `near` most (share of their union); none overlapping: the closest centre. */
function nearest(places: readonly PageMatch[], near: Rect): PageMatch {
  const share = (m: PageMatch) => {
    const common = m.rects.reduce((s, r) => s + overlap(r, near), 0);
    return common / (m.rects.reduce((s, r) => s + area(r), 0) + area(near) - common || 1);
  };
  const centre = (r: Rect | undefined) => (r ? [r.x + r.w / 2, r.y + r.h / 2] : [Infinity, Infinity]);
  const [nx, ny] = centre(near);
  const distance = (m: PageMatch) => Math.hypot(centre(m.rect)[0] - nx, centre(m.rect)[1] - ny);
  return places.reduce((best, m) => {
    const [a, b] = [share(m), share(best)];
    return a > b || (a === b && distance(m) < distance(best)) ? m : best;
  });
}

/** The key range [from, to) from the first to the last key char of an item within NEAR_MARGIN of `near`. */
function keysNear(items: readonly TextItem[], page: FoldedText, near: Rect): [number, number] {
  const box = {
    x: near.x - NEAR_MARGIN,
    y: near.y - NEAR_MARGIN,
    w: near.w + 2 * NEAR_MARGIN,
    h: near.h + 2 * NEAR_MARGIN,
  };
  const close = items.map(
    (it) => overlap(pageRect({ x: it.x, y: it.y, w: Math.max(it.w, 0.1), h: Math.max(it.h, 0.1) }, it.rot), box) > 0,
  );
  let [from, to] = [-1, -1];
  for (let k = 0; k < page.length; k++)
    if (close[page.itemOf[k]]) {
      if (from < 0) from = k;
      to = k + 1;
    }
  return from < 0 ? [0, 0] : [from, to];
}
