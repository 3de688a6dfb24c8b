import { pageScore } from '../library/searchRanking';
import type { BookBody } from './indexFormat';

export interface PageHit {
  page: number;
  score: number;
}

/** Index of the first term ≥ `w` (bytewise), by binary search over the sorted term bytes. */
function lowerBound(body: BookBody, w: Buffer): number {
  let lo = 0;
  let hi = body.termOff.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (Buffer.compare(body.terms.subarray(body.termOff[mid], body.termOff[mid + 1]), w) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Adds the postings of every term matching `w` (the word itself, or every word it starts) into tf per page; false when none matches. */
function addTermFrequencies(body: BookBody, w: Buffer, prefix: boolean, tf: Uint32Array): boolean {
  const count = body.termOff.length - 1;
  let found = false;
  for (let i = lowerBound(body, w); i < count; i++) {
    const t = body.terms.subarray(body.termOff[i], body.termOff[i + 1]);
    const isPrefix = t.length >= w.length && t.compare(w, 0, w.length, 0, w.length) === 0;
    if (!isPrefix || (!prefix && t.length !== w.length)) break;
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
 * Pages of one book holding every word (AND), as whole words or as prefixes,
 * scored bm25-style against the library's average page length; highest page
 * number first (the order a newest-first window reads them).
 */
export function matchPages(body: BookBody, words: string[], prefix: boolean, avgLength: number): PageHit[] {
  const n = body.pageNo.length;
  const tfs: Uint32Array[] = [];
  for (const w of words) {
    const tf = new Uint32Array(n);
    if (!addTermFrequencies(body, Buffer.from(w, 'utf8'), prefix, tf)) return [];
    tfs.push(tf);
  }
  const hits: PageHit[] = [];
  const perWord = new Array<number>(tfs.length);
  for (let i = n - 1; i >= 0; i--) {
    let all = true;
    for (let k = 0; k < tfs.length && all; k++) all = (perWord[k] = tfs[k][i]) > 0;
    if (all) hits.push({ page: body.pageNo[i], score: pageScore(perWord, body.pageLen[i], avgLength) });
  }
  return hits;
}
