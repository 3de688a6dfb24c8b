import type { Rect, TextItem } from '../pdf/pdfTypes';
import { foldItems, foldKey, keyString } from './fold';
import { rectOfKeys, textOfKeys } from './keySpan';
import { ACCEPT_SCORE, matchScore, sellers } from './sellers';

export interface LocateResult {
  found: boolean;
  /** `no_match` or `page_unreadable` when not found. */
  status: 'found' | 'no_match' | 'page_unreadable';
  matchedText?: string;
  /** 0..1: 1 − edit distance / quote key length. */
  score: number;
  rect?: Rect;
  algorithm: 'approximate_substring';
}

/** Longest quote key compared (a page is a few thousand key chars; the matcher is quadratic). */
const MAX_KEY = 2000;

/**
 * Finds `text` on one page's items: the quote's key against the best
 * substring of the page's key (same folding and matcher as bundle
 * anchoring). Found when the score is at least `minScore`.
 */
export function locateText(items: readonly TextItem[], text: string, minScore = ACCEPT_SCORE): LocateResult {
  const algorithm = 'approximate_substring' as const;
  const page = foldItems(items);
  if (!page.length) return { found: false, status: 'page_unreadable', score: 0, algorithm };
  const q = foldKey(text).slice(0, MAX_KEY);
  if (!q.length) return { found: false, status: 'no_match', score: 0, algorithm };
  const key = keyString(page);
  const at = key.indexOf(q);
  const r = at >= 0 ? { dist: 0, start: at, end: at + q.length } : sellers(q, key);
  const score = matchScore(r.dist, q.length);
  if (score < minScore || r.end <= r.start) return { found: false, status: 'no_match', score, algorithm };
  const rect = rectOfKeys(items, page, r.start, r.end - 1);
  return { found: true, status: 'found', matchedText: textOfKeys(items, page, r.start, r.end - 1, text), score, ...(rect ? { rect } : {}), algorithm };
}
