import type { Rect, TextItem } from '../pdf/pdfTypes';

/**
 * Anchors `[excerpt: …]` text to a page and rectangle of a bundle's pages.
 *
 * Pages and excerpts are both reduced to a key of letters and digits only
 * (NFKC, so ligatures unfold; diacritics and case folded), which makes the
 * match blind to line breaks, hyphenation, quotes, dashes and whitespace. An
 * exact key match is found through an 8-gram index; otherwise 8-gram seeds
 * vote for candidate places and a free-ended edit distance (Sellers) scores
 * the best few. Keys map back to the items, so the rectangle is the union of
 * the matched parts of the items.
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

/** Below this, an excerpt is accepted; between this and REJECT_SCORE it is "below_threshold". */
export const ACCEPT_SCORE = 0.85;
const REJECT_SCORE = 0.6;
/** An excerpt needs this many letters/digits to be told apart from chance. */
export const MIN_KEY_CHARS = 6;
const GRAM = 8;
const MAX_FUZZY_KEY = 1500;

const foldCache = new Map<string, string>();

/** Letters and digits of one character after NFKC, lower case and diacritics removed ('' for the rest). */
function foldChar(c: string): string {
  let f = foldCache.get(c);
  if (f === undefined) {
    f = c
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]/gu, '');
    if (foldCache.size < 20000) foldCache.set(c, f);
  }
  return f;
}

const codesOf = (s: string) => {
  const a = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
  return a;
};

/** The key of a free text (an excerpt). */
export function textKey(text: string): string {
  let out = '';
  for (const c of text) out += foldChar(c);
  return out;
}

interface PageSpan {
  page: number;
  start: number;
  end: number;
  items: TextItem[];
  hasCoords: boolean;
}

/** Growable typed buffers for the page keys. */
class Buf {
  codes = new Uint16Array(1 << 14);
  itemOf = new Int32Array(1 << 14);
  offsetOf = new Int32Array(1 << 14);
  n = 0;
  push(code: number, item: number, offset: number): void {
    if (this.n === this.codes.length) {
      const grow = <T extends Uint16Array | Int32Array>(a: T): T => {
        const b = new (a.constructor as { new (n: number): T })(a.length * 2);
        b.set(a);
        return b;
      };
      this.codes = grow(this.codes);
      this.itemOf = grow(this.itemOf);
      this.offsetOf = grow(this.offsetOf);
    }
    this.codes[this.n] = code;
    this.itemOf[this.n] = item;
    this.offsetOf[this.n++] = offset;
  }
}

const B = 0x01000193;
const B7 = (() => {
  let p = 1;
  for (let i = 0; i < GRAM - 1; i++) p = Math.imul(p, B);
  return p;
})();

function gramHash(codes: ArrayLike<number>, at: number): number {
  let h = 0;
  for (let k = 0; k < GRAM; k++) h = (Math.imul(h, B) + codes[at + k]) | 0;
  return h;
}

export class AnchorIndex {
  /** All pages' keys, concatenated in page order. */
  private readonly key: string;
  private readonly codes: Uint16Array;
  /** Per key char: its item index on its page and its offset in the item's string. */
  private readonly itemOf: Int32Array;
  private readonly offsetOf: Int32Array;
  private readonly spans: PageSpan[];
  /** 8-gram hash table: chains of key positions, ascending. */
  private head: Int32Array | undefined;
  private next: Int32Array | undefined;
  private mask = 0;
  /** True when no page of the bundle has readable text. */
  readonly empty: boolean;

  constructor(pages: readonly AnchorPage[]) {
    const buf = new Buf();
    this.spans = [];
    for (const p of pages) {
      const start = buf.n;
      const items = p.ocr === 2 ? [] : p.items;
      for (let idx = 0; idx < items.length; idx++) {
        const s = items[idx].str;
        for (let k = 0; k < s.length; k++) {
          const code = s.charCodeAt(k);
          if (code < 128) {
            // ASCII fast path: digits and letters, lower-cased.
            if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122)) buf.push(code, idx, k);
            else if (code >= 65 && code <= 90) buf.push(code + 32, idx, k);
            continue;
          }
          // A surrogate pair is one character (maths italic letters fold to plain ones).
          const pair = code >= 0xd800 && code <= 0xdbff && k + 1 < s.length;
          const f = foldChar(pair ? s.slice(k, k + 2) : s[k]);
          for (let j = 0; j < f.length; j++) buf.push(f.charCodeAt(j), idx, k);
          if (pair) k++;
        }
      }
      this.spans.push({ page: p.page, start, end: buf.n, items, hasCoords: items.some((i) => i.w > 0 && i.h > 0) });
    }
    this.codes = buf.codes.subarray(0, buf.n);
    this.itemOf = buf.itemOf.subarray(0, buf.n);
    this.offsetOf = buf.offsetOf.subarray(0, buf.n);
    let key = '';
    for (let i = 0; i < buf.n; i += 8192) key += String.fromCharCode.apply(null, Array.from(this.codes.subarray(i, Math.min(buf.n, i + 8192))));
    this.key = key;
    this.empty = buf.n === 0;
  }

  private buildGrams(): void {
    if (this.head) return;
    const n = this.codes.length;
    let size = 1024;
    while (size < n * 2) size <<= 1;
    this.mask = size - 1;
    const head = new Int32Array(size).fill(-1);
    const next = new Int32Array(Math.max(1, n));
    const c = this.codes;
    if (n >= GRAM) {
      // Rolling hashes left to right, then chained right to left so chains run in ascending order.
      const hashes = new Int32Array(n - GRAM + 1);
      let h = gramHash(c, 0);
      hashes[0] = h;
      for (let i = 1; i + GRAM <= n; i++) {
        h = (Math.imul(h - Math.imul(c[i - 1], B7), B) + c[i + GRAM - 1]) | 0;
        hashes[i] = h;
      }
      for (let i = hashes.length - 1; i >= 0; i--) {
        const b = hashes[i] & this.mask;
        next[i] = head[b];
        head[b] = i;
      }
    }
    this.head = head;
    this.next = next;
  }

  /** Key positions where q[at, at+8) occurs, ascending, at most `limit + 1` of them. */
  private gramHits(q: Uint16Array, at: number, limit: number): number[] {
    this.buildGrams();
    const out: number[] = [];
    const c = this.codes;
    for (let p = this.head![gramHash(q, at) & this.mask]; p >= 0 && out.length <= limit; p = this.next![p]) {
      let same = true;
      for (let k = 0; k < GRAM && same; k++) same = c[p + k] === q[at + k];
      if (same) out.push(p);
    }
    return out;
  }

  /** Builds the n-gram index now (bench and first check warm it). */
  warm(): void {
    this.buildGrams();
  }

  anchor(text: string): AnchorResult {
    const q = textKey(text);
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
    for (const h of this.gramHits(codesOf(q), 0, Infinity)) if (this.key.startsWith(q, h)) return h;
    return -1;
  }

  /** Seeds vote for diagonals (key start positions); the best few are scored by edit distance. */
  private fuzzy(q: string): { start: number; end: number; score: number } | undefined {
    const m = q.length;
    const qc = codesOf(q);
    const votes = new Map<number, number>();
    const bucket = Math.max(8, Math.round(m * 0.1));
    const seedStep = Math.max(GRAM, Math.floor(m / 40));
    for (let s = 0; s + GRAM <= m; s += seedStep) {
      const hits = this.gramHits(qc, s, 64);
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
      const score = Math.max(0, 1 - r.dist / m);
      if (!best || score > best.score) best = { start: r.start, end: r.end, score };
    }
    return best && { ...best, score: Math.round(best.score * 1000) / 1000 };
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
    const last = Math.min(end, span.end) - 1;
    let rect: Rect | undefined;
    let k = start;
    while (k <= last) {
      const item = this.itemOf[k];
      let j = k;
      while (j + 1 <= last && this.itemOf[j + 1] === item) j++;
      const it = span.items[item];
      const len = it.str.length || 1;
      const from = this.offsetOf[k];
      const to = this.offsetOf[j] + 1;
      const r: Rect = { x: it.x + (it.w * from) / len, y: it.y, w: (it.w * (to - from)) / len, h: it.h };
      if (!rect) rect = r;
      else {
        const x = Math.min(rect.x, r.x);
        const y = Math.min(rect.y, r.y);
        rect = { x, y, w: Math.max(rect.x + rect.w, r.x + r.w) - x, h: Math.max(rect.y + rect.h, r.y + r.h) - y };
      }
      k = j + 1;
    }
    if (!rect || rect.w <= 0 || rect.h <= 0) return { anchored: false, page: span.page, score, reason: 'no_coordinates' };
    const round = (v: number) => Math.round(v * 100) / 100;
    return { anchored: true, page: span.page, rect: { x: round(rect.x), y: round(rect.y), width: round(rect.w), height: round(rect.h) }, score };
  }
}

/** Edit distance of q against the best substring of t[from, to) (free start and end). */
export function sellers(q: string, t: string, from: number, to: number): { dist: number; start: number; end: number } {
  const n = to - from;
  const m = q.length;
  let prev = new Int32Array(n + 1);
  let prevStart = new Int32Array(n + 1);
  let cur = new Int32Array(n + 1);
  let curStart = new Int32Array(n + 1);
  for (let j = 0; j <= n; j++) prevStart[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    curStart[0] = 0;
    const qc = q.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const sub = prev[j - 1] + (t.charCodeAt(from + j - 1) === qc ? 0 : 1);
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      if (sub <= del && sub <= ins) {
        cur[j] = sub;
        curStart[j] = prevStart[j - 1];
      } else if (del <= ins) {
        cur[j] = del;
        curStart[j] = prevStart[j];
      } else {
        cur[j] = ins;
        curStart[j] = curStart[j - 1];
      }
    }
    [prev, cur] = [cur, prev];
    [prevStart, curStart] = [curStart, prevStart];
  }
  let dist = m;
  let end = 0;
  for (let j = 0; j <= n; j++) if (prev[j] < dist) [dist, end] = [prev[j], j];
  return { dist, start: from + prevStart[end], end: from + end };
}
