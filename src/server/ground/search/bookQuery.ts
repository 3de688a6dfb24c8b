import { pageScore } from './searchRanking';
import type { BookBody } from './indexFormat';

export interface PageHit {
  page: number;
  score: number;
}

/** Bytewise order of term `i` against `w` (negative: the term sorts first), without allocating. */
function compareTerm(body: BookBody, i: number, w: Uint8Array): number {
  const t = body.terms;
  const start = body.termOff[i];
  const len = body.termOff[i + 1] - start;
  const n = Math.min(len, w.length);
  for (let k = 0; k < n; k++) {
    const d = t[start + k] - w[k];
    if (d) return d;
  }
  return len - w.length;
}

/** Index of the first term ≥ `w`, by binary search over the sorted term bytes. */
function lowerBound(body: BookBody, w: Uint8Array): number {
  let lo = 0;
  let hi = body.termOff.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareTerm(body, mid, w) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether term `i` starts with `w`. */
function startsWith(body: BookBody, i: number, w: Uint8Array): boolean {
  const start = body.termOff[i];
  if (body.termOff[i + 1] - start < w.length) return false;
  for (let k = 0; k < w.length; k++) if (body.terms[start + k] !== w[k]) return false;
  return true;
}

/** Adds the postings of every term matching `w` (the word itself, or every word it starts) into tf per page; false when none matches. */
function addTermFrequencies(body: BookBody, w: Uint8Array, prefix: boolean, tf: Uint32Array): boolean {
  const count = body.termOff.length - 1;
  let found = false;
  for (let i = lowerBound(body, w); i < count; i++) {
    if (!startsWith(body, i, w) || (!prefix && body.termOff[i + 1] - body.termOff[i] !== w.length)) break;
    found = true;
    const p = body.postings;
    let at = body.postOff[i];
    const end = body.postOff[i + 1];
    let page = 0;
    while (at < end) {
      let d = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = p[at++];
        d |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte & 0x80);
      let n = 0;
      shift = 0;
      do {
        byte = p[at++];
        n |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte & 0x80);
      page += d;
      tf[page] += n;
    }
    if (!prefix) break;
  }
  return found;
}

/**
 * Per-page term frequencies, reused: a search counts in every book it reads,
 * and allocating typed arrays for each (off-heap, freed by the GC) cost more
 * than the counting. matchPages never awaits, so no two calls share them.
 */
const scratch: Uint32Array[] = [];

/** Scratch array `k`, zeroed over its first `n` entries (pages). */
function scratchTf(k: number, n: number): Uint32Array {
  const a = scratch[k];
  if (a && a.length >= n) return a.fill(0, 0, n);
  return (scratch[k] = new Uint32Array(Math.max(n, 1024)));
}

/**
 * Pages of one book holding every word (UTF-8 bytes; AND), as whole words or as prefixes,
 * scored bm25-style against the library's average page length; `bonus` words
 * (whole) are not required but add to a page's score. Highest page number
 * first (the order a newest-first window reads them).
 */
export function matchPages(
  body: BookBody,
  words: Uint8Array[],
  prefix: boolean,
  avgLength: number,
  bonus: readonly Uint8Array[] = [],
): PageHit[] {
  const n = body.pageNo.length;
  const tfs: Uint32Array[] = [];
  for (const w of words) {
    const tf = scratchTf(tfs.length, n);
    if (!addTermFrequencies(body, w, prefix, tf)) return [];
    tfs.push(tf);
  }
  const required = tfs.length;
  for (const w of bonus) {
    const tf = scratchTf(tfs.length, n);
    if (addTermFrequencies(body, w, false, tf)) tfs.push(tf);
  }
  const hits: PageHit[] = [];
  const perWord = new Array<number>(tfs.length);
  for (let i = n - 1; i >= 0; i--) {
    let all = true;
    for (let k = 0; k < required && all; k++) all = (perWord[k] = tfs[k][i]) > 0;
    if (!all) continue;
    for (let k = required; k < tfs.length; k++) perWord[k] = tfs[k][i];
    hits.push({ page: body.pageNo[i], score: pageScore(perWord, body.pageLen[i], avgLength) });
  }
  return hits;
}
