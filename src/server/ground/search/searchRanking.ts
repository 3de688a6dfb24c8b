/** Ranking and snippets for library search, computed in JS from what FTS4 and the text index hand out. */

import type { QueryPart } from '../text/searchTerms';
import { isCjkCode, tokenize } from '../text/tokenize';

const K1 = 1.2;
const B = 0.75;

/**
 * bm25 without idf from an FTS4 matchinfo(…, 'pcnaly') blob: per phrase and
 * column, term-frequency saturation (k1) with length normalisation (b)
 * against the column's average length. Computed here rather than in a
 * registered SQL function: both cost the same per row (measured), and the
 * store does not hand out its database handle. `phrases`: the phrases that
 * count, in the order they are summed (cardIndexText.ts CardQuery.rank);
 * all of them in query order by default.
 */
export function bm25Score(blob: Uint8Array, phrases?: readonly number[]): number {
  // A view, not a copy: sql.js hands each blob its own aligned buffer, and copying 2000 of them cost ~1 ms a search.
  return bm25Of(
    blob.byteOffset % 4 === 0
      ? new Uint32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2)
      : new Uint32Array(blob.slice().buffer),
    phrases,
  );
}

/** bm25Score of matchinfo already read as 32-bit words. */
export function bm25Of(m: Uint32Array, phrases?: readonly number[]): number {
  const p = m[0];
  const c = m[1];
  const avg = 3; // after p, c, n
  const len = avg + c;
  const hits = len + c;
  const n = phrases ? phrases.length : p;
  let score = 0;
  for (let col = 0; col < c; col++) {
    const dl = m[len + col];
    const norm = K1 * (1 - B + (B * dl) / (m[avg + col] || 1));
    for (let i = 0; i < n; i++) {
      const ph = phrases ? phrases[i] : i;
      const tf = m[hits + ph * c + col];
      if (tf) score += (tf * (K1 + 1)) / (tf + norm);
    }
  }
  return score;
}

/**
 * The same bm25 (no idf) for one page of the text index: term frequency per
 * query word, the page's length in words and the library's average.
 */
export function pageScore(tfs: ArrayLike<number>, length: number, avgLength: number): number {
  const norm = K1 * (1 - B + (B * length) / (avgLength || 1));
  let score = 0;
  for (let i = 0; i < tfs.length; i++) if (tfs[i]) score += (tfs[i] * (K1 + 1)) / (tfs[i] + norm);
  return score;
}

/**
 * A window of about `size` tokens around the densest run of query matches
 * (the text module's tokens and folding, as the indexes see them: a Latin
 * part matches a token it starts, a CJK part its characters in sequence),
 * matched tokens in [brackets], cut ends marked with … CJK characters are
 * tokens of their own and count as half a word; they are shown folded
 * (the radical ⽤ a PDF font maps 用 to reads 用).
 */
export function snippetOf(text: string, parts: readonly QueryPart[], size = 12): string {
  const tokens = tokenize(text);
  const n = tokens.length;
  if (!n) return '';
  // Flags beside the tokens, not copies of them: a search makes snippets of 20 cards.
  const hit = new Uint8Array(n);
  const cjk = new Uint8Array(n);
  const latin = parts.filter((p) => !p.cjk).map((p) => p.key);
  for (let i = 0; i < n; i++) {
    const key = tokens[i].key;
    cjk[i] = isCjkCode(key.charCodeAt(0)) ? 1 : 0;
    if (!cjk[i]) for (const w of latin) if (key.startsWith(w)) hit[i] = 1;
  }
  const runs = parts.filter((p) => p.cjk).map((p) => Array.from(p.key));
  for (const chars of runs)
    for (let i = 0; i + chars.length <= n; i++) {
      let k = 0;
      while (k < chars.length && tokens[i + k].key === chars[k]) k++;
      if (k === chars.length) hit.fill(1, i, i + k);
    }
  if (runs.length) size *= 2;
  // The window start with the most hits; the earliest wins a tie.
  let bestFrom = 0;
  let bestHits = -1;
  let inWindow = 0;
  for (let i = 0; i < n; i++) {
    if (hit[i]) inWindow++;
    if (i >= size && hit[i - size]) inWindow--;
    const from = Math.max(0, i - size + 1);
    if (inWindow > bestHits) {
      bestHits = inWindow;
      bestFrom = from;
    }
  }
  // Start two words (four CJK characters) before the window's first hit, so the hit has some context.
  let firstHit = bestFrom;
  while (firstHit < n && !hit[firstHit]) firstHit++;
  if (firstHit === n) firstHit = -1;
  const from = Math.max(0, firstHit - (runs.length ? 4 : 2));
  const to = Math.min(n, from + size);
  let out = from > 0 ? '…' : '';
  let at = tokens[from].from;
  for (let i = from; i < to; i++) {
    const t = tokens[i];
    const raw = text.slice(at, t.from);
    // CJK lines join without a space, as the indexes join them.
    const gap = cjk[i] && i > 0 && cjk[i - 1] && /^\s*[\r\n]\s*$/.test(raw) ? '' : raw.replace(/\s+/g, ' ');
    // Hits that touch (the characters of a CJK word) share one bracket.
    const joined = hit[i] && !gap && i > from && hit[i - 1];
    if (joined) out = out.slice(0, -1);
    out += gap;
    const shown = cjk[i] ? t.key : text.slice(t.from, t.to);
    out += hit[i] ? `${joined ? '' : '['}${shown}]` : shown;
    at = t.to;
  }
  return to < n ? `${out}…` : out;
}
