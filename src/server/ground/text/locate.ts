import type { Rect, TextItem } from '../pdf/pdfTypes';
import { ACCEPT_SCORE } from './align';
import { foldItems, foldKey, keyString } from './fold';
import { alignedMatch, exactMatch, matchedText } from './pageMatch';
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

/**
 * Finds `text` on one page's items: an exact key match, else the token
 * alignment (same folding and matcher as bundle anchoring). Found when the
 * score is at least `minScore`.
 */
export function locateText(items: readonly TextItem[], text: string, minScore = ACCEPT_SCORE): LocateResult {
  const algorithm = 'approximate_substring' as const;
  const page = foldItems(items);
  if (!page.length) return { found: false, status: 'page_unreadable', score: 0, algorithm };
  const q = foldKey(text);
  if (!q.length) return { found: false, status: 'no_match', score: 0, algorithm };
  const at = keyString(page).indexOf(q);
  const m =
    at >= 0
      ? exactMatch(items, page, at, at + q.length, text)
      : alignedMatch(items, page, keyTokens(items, page), quoteTokens(text).slice(0, MAX_TOKENS), text);
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
