import type { TextItem } from '../pdf/pdfTypes';
import { FoldBuffer, foldKey, keyString, type FoldedText } from './fold';
import { GRAM, GramIndex } from './gramIndex';
import { rectOfKeys } from './keySpan';
import { ACCEPT_SCORE, REJECT_SCORE, matchScore, sellers } from './sellers';

/**
 * Anchors excerpts to a page and rectangle among many pages (a bundle's).
 * All pages' keys are concatenated; an exact key match is found through the
 * 8-gram index, otherwise 8-gram seeds vote for candidate places and the
 * matcher scores the best few.
 */

export type AnchorFailReason = 'no_match' | 'below_threshold' | 'missing_info' | 'invalid_excerpt' | 'no_coordinates';

export interface AnchorRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface AnchorResult {
  anchored: boolean;
  page?: number;
  rect?: AnchorRect;
  /** 0..1: 1 − edit distance / excerpt key length. */
  score: number;
  reason?: AnchorFailReason;
}

export interface AnchorPage {
  page: number;
  items: TextItem[];
  /** 0 text layer, 1 OCR, 2 unreadable. */
  ocr: number;
}

/** An excerpt needs this many letters/digits to be told apart from chance. */
export const MIN_KEY_CHARS = 6;
const MAX_FUZZY_KEY = 1500;

interface PageSpan {
  page: number;
  start: number;
  end: number;
  items: TextItem[];
  hasCoords: boolean;
}

const codesOf = (s: string) => {
  const a = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
  return a;
};

export class AnchorIndex {
  private readonly folded: FoldedText;
  /** All pages' keys, concatenated in page order. */
  private readonly key: string;
  private readonly spans: PageSpan[] = [];
  private grams: GramIndex | undefined;
  /** True when no page of the bundle has readable text. */
  readonly empty: boolean;

  constructor(pages: readonly AnchorPage[]) {
    const buf = new FoldBuffer();
    for (const p of pages) {
      const start = buf.length;
      const items = p.ocr === 2 ? [] : p.items;
      buf.appendItems(items);
      this.spans.push({ page: p.page, start, end: buf.length, items, hasCoords: items.some((i) => i.w > 0 && i.h > 0) });
    }
    this.folded = buf.done();
    this.key = keyString(this.folded);
    this.empty = this.folded.length === 0;
  }

  private gramIndex(): GramIndex {
    return (this.grams ??= new GramIndex(this.folded.codes));
  }

  /** Builds the n-gram index now (bench and first check warm it). */
  warm(): void {
    this.gramIndex();
  }

  anchor(text: string): AnchorResult {
    const q = foldKey(text);
    if (q.length < MIN_KEY_CHARS) return { anchored: false, score: 0, reason: 'invalid_excerpt' };
    if (this.empty) return { anchored: false, score: 0, reason: 'missing_info' };
    const exact = this.exact(q);
    if (exact >= 0) return this.place(exact, exact + q.length, 1);
    if (q.length > MAX_FUZZY_KEY) return { anchored: false, score: 0, reason: 'no_match' };
    const fuzzy = this.fuzzy(q);
    if (!fuzzy) return { anchored: false, score: 0, reason: 'no_match' };
    if (fuzzy.score >= ACCEPT_SCORE) return this.place(fuzzy.start, fuzzy.end, fuzzy.score);
    return { anchored: false, score: fuzzy.score, reason: fuzzy.score >= REJECT_SCORE ? 'below_threshold' : 'no_match' };
  }

  private exact(q: string): number {
    if (q.length < GRAM) return this.key.indexOf(q);
    for (const h of this.gramIndex().hits(codesOf(q), 0, Infinity)) if (this.key.startsWith(q, h)) return h;
    return -1;
  }

  /** Seeds vote for diagonals (key start positions); the best few are scored by the matcher. */
  private fuzzy(q: string): { start: number; end: number; score: number } | undefined {
    const m = q.length;
    const qc = codesOf(q);
    const votes = new Map<number, number>();
    const bucket = Math.max(8, Math.round(m * 0.1));
    const seedStep = Math.max(GRAM, Math.floor(m / 40));
    for (let s = 0; s + GRAM <= m; s += seedStep) {
      const hits = this.gramIndex().hits(qc, s, 64);
      if (hits.length > 64) continue; // too common to tell anything
      for (const h of hits) {
        const b = Math.floor((h - s) / bucket);
        votes.set(b, (votes.get(b) ?? 0) + 1);
      }
    }
    if (!votes.size) return undefined;
    const ranked = [...votes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4);
    let best: { start: number; end: number; score: number } | undefined;
    for (const [b] of ranked) {
      const from = Math.max(0, b * bucket - Math.ceil(m * 0.3) - bucket);
      const to = Math.min(this.key.length, b * bucket + Math.ceil(m * 1.3) + 2 * bucket);
      const r = sellers(q, this.key, from, to);
      const score = matchScore(r.dist, m);
      if (!best || score > best.score) best = { start: r.start, end: r.end, score };
    }
    return best;
  }

  private spanAt(pos: number): PageSpan {
    let lo = 0;
    let hi = this.spans.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.spans[mid].start <= pos) lo = mid;
      else hi = mid - 1;
    }
    // Skip empty pages that share the start position.
    while (lo < this.spans.length - 1 && this.spans[lo].end <= pos) lo++;
    return this.spans[lo];
  }

  /** Page and rectangle of key range [start, end): the page where it starts, cut at that page's end. */
  private place(start: number, end: number, score: number): AnchorResult {
    const span = this.spanAt(start);
    if (!span.hasCoords) return { anchored: false, page: span.page, score, reason: 'no_coordinates' };
    const rect = rectOfKeys(span.items, this.folded, start, Math.min(end, span.end) - 1);
    if (!rect) return { anchored: false, page: span.page, score, reason: 'no_coordinates' };
    return { anchored: true, page: span.page, rect: { x: rect.x, y: rect.y, width: rect.w, height: rect.h }, score };
  }
}
