import type { TextItem } from '../pdf/pdfTypes';
import { FoldBuffer, foldKey, keyString, type FoldedText } from './fold';
import { GRAM, GramIndex } from './gramIndex';
import { ACCEPT_SCORE, REJECT_SCORE } from './align';
import { alignedMatch, exactMatch, type PageMatch } from './pageMatch';
import { isCjkCode, keyTokens, quoteTokens, type KeyToken } from './tokenize';

/**
 * Anchors excerpts to a page and rectangles among many pages (a bundle's).
 * All pages' keys are concatenated; an exact key match is found through the
 * 8-gram index, otherwise 8-gram seeds vote for candidate pages and the
 * token alignment scores the best few.
 */

/** `ambiguous`: it matches on several pages and nothing told which (set by the caller that decides, never here). */
export type AnchorFailReason =
  'no_match' | 'below_threshold' | 'missing_info' | 'invalid_excerpt' | 'no_coordinates' | 'ambiguous';

export interface AnchorRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface AnchorResult {
  anchored: boolean;
  page?: number;
  /** Union of `rects` (what clients that know one box read). */
  rect?: AnchorRect;
  /** One per line or fragment of the match. */
  rects?: AnchorRect[];
  /** 0..1: the alignment score (1 for a verbatim excerpt). */
  score: number;
  reason?: AnchorFailReason;
  /** Set when the excerpt matches as well on other pages: the same answer placed on each of them, page order. */
  others?: AnchorResult[];
}

export interface AnchorPage {
  page: number;
  items: TextItem[];
  /** 0 text layer, 1 OCR, 2 unreadable. */
  ocr: number;
}

/** Letters and digits of a key, a CJK character counting two. */
function keyWeight(q: string): number {
  let w = 0;
  for (let i = 0; i < q.length; i++) w += isCjkCode(q.charCodeAt(i)) ? 2 : 1;
  return w;
}

/** An excerpt needs this much key weight (letters/digits, CJK counting two) to be told apart from chance. */
export const MIN_KEY_CHARS = 6;
const MAX_FUZZY_KEY = 1500;
/** Pages aligned per fuzzy excerpt, most seed votes first. */
const CANDIDATE_PAGES = 3;
/** A fuzzy match on another page this close to the best one is as good a place: the excerpt is ambiguous. */
const AMBIGUOUS_MARGIN = 0.05;
/** Verbatim occurrences looked at per excerpt (a phrase printed on every page is a running head, not a quote). */
const MAX_OCCURRENCES = 24;

interface PageSpan {
  page: number;
  start: number;
  end: number;
  items: TextItem[];
  hasCoords: boolean;
  tokens?: KeyToken[];
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
      this.spans.push({
        page: p.page,
        start,
        end: buf.length,
        items,
        hasCoords: items.some((i) => i.w > 0 && i.h > 0),
      });
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

  /**
   * `minScore`: the acceptance threshold (the bench lowers it to draw the score
   * curve). When the excerpt matches on several pages, the answer is placed on
   * the first and `others` holds it placed on each of the rest: the caller
   * decides by context (anchoring.md, "Ambiguous excerpts").
   */
  anchor(text: string, minScore = ACCEPT_SCORE): AnchorResult {
    const q = foldKey(text);
    if (keyWeight(q) < MIN_KEY_CHARS) return { anchored: false, score: 0, reason: 'invalid_excerpt' };
    if (this.empty) return { anchored: false, score: 0, reason: 'missing_info' };
    const exact = this.exactSpans(q);
    if (exact.length) {
      // An anchor names one page: a quote over a page break is placed on the page holding most of it.
      const placed = exact.map(([span, at]) =>
        this.place(
          span,
          exactMatch(span.items, this.folded, Math.max(at, span.start), Math.min(at + q.length, span.end), text),
        ),
      );
      return withOthers(placed);
    }
    if (q.length > MAX_FUZZY_KEY) return { anchored: false, score: 0, reason: 'no_match' };
    const found: { span: PageSpan; m: PageMatch }[] = [];
    const quote = quoteTokens(text);
    for (const span of this.candidates(q)) {
      const m = alignedMatch(
        span.items,
        this.folded,
        (span.tokens ??= keyTokens(span.items, this.folded, span.start, span.end)),
        quote,
        text,
      );
      if (m) found.push({ span, m });
    }
    if (!found.length) return { anchored: false, score: 0, reason: 'no_match' };
    const best = found.reduce((a, b) => (b.m.score > a.m.score ? b : a));
    if (best.m.score < minScore)
      return {
        anchored: false,
        score: best.m.score,
        reason: best.m.score >= REJECT_SCORE ? 'below_threshold' : 'no_match',
      };
    const close = found
      .filter((f) => f === best || f.m.score >= Math.max(minScore, best.m.score - AMBIGUOUS_MARGIN))
      .sort((a, b) => (a === best ? -1 : b === best ? 1 : a.span.page - b.span.page));
    return withOthers(close.map((f) => this.place(f.span, f.m)));
  }

  /** Each page an exact key match starts on (or holds most of), with its key position; in page order. */
  private exactSpans(q: string): [PageSpan, number][] {
    const out: [PageSpan, number][] = [];
    const seen = new Set<PageSpan>();
    const add = (at: number) => {
      const span = this.mostOf(at, at + q.length);
      if (!seen.has(span)) out.push([span, at]);
      seen.add(span);
    };
    if (q.length < GRAM) {
      for (let at = this.key.indexOf(q); at >= 0 && out.length < MAX_OCCURRENCES; at = this.key.indexOf(q, at + 1))
        add(at);
      return out;
    }
    for (const h of this.gramIndex().hits(codesOf(q), 0, Infinity)) {
      if (out.length >= MAX_OCCURRENCES) break;
      if (this.key.startsWith(q, h)) add(h);
    }
    return out;
  }

  /** Pages where the quote's 8-gram seeds land most often. */
  private candidates(q: string): PageSpan[] {
    const m = q.length;
    const qc = codesOf(q);
    const votes = new Map<PageSpan, number>();
    const seedStep = Math.max(1, Math.floor(m / 60));
    for (let s = 0; s + GRAM <= m; s += seedStep) {
      const hits = this.gramIndex().hits(qc, s, 64);
      if (hits.length > 64) continue; // too common to tell anything
      const seen = new Set<PageSpan>();
      for (const h of hits) seen.add(this.spanAt(h));
      for (const span of seen) votes.set(span, (votes.get(span) ?? 0) + 1);
    }
    if (!votes.size && this.spans.length === 1) return this.spans;
    return [...votes.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, CANDIDATE_PAGES)
      .map(([span]) => span);
  }

  /** The page span holding the most of key range [start, end). */
  private mostOf(start: number, end: number): PageSpan {
    let best = this.spanAt(start);
    for (let span = best; span.end < end;) {
      const next = this.spanAt(span.end);
      if (next === span) break;
      span = next;
      if (Math.min(end, span.end) - span.start > Math.min(end, best.end) - Math.max(start, best.start)) best = span;
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

  /** The answer for a match on a page (an exact match is cut at its page's end). */
  private place(span: PageSpan, m: PageMatch): AnchorResult {
    if (!span.hasCoords || !m.rect)
      return { anchored: false, page: span.page, score: m.score, reason: 'no_coordinates' };
    const box = (r: { x: number; y: number; w: number; h: number }): AnchorRect => ({
      x: r.x,
      y: r.y,
      width: r.w,
      height: r.h,
    });
    return { anchored: true, page: span.page, rect: box(m.rect), rects: m.rects.map(box), score: m.score };
  }
}

/** The first placement that anchored (else the first), with the other anchored ones as `others`. */
function withOthers(placed: AnchorResult[]): AnchorResult {
  const anchored = placed.filter((p) => p.anchored);
  if (anchored.length < 2) return anchored[0] ?? placed[0];
  return { ...anchored[0], others: anchored.slice(1) };
}
