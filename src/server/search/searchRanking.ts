/** Ranking and snippets for library search, computed in JS from what FTS4 and the text index hand out. */

import { CJK_CHAR, foldCompat, hasCjk } from './cjk';

const K1 = 1.2;
const B = 0.75;

/**
 * bm25 without idf from an FTS4 matchinfo(…, 'pcnaly') blob: per phrase and
 * column, term-frequency saturation (k1) with length normalisation (b)
 * against the column's average length. Computed here rather than in a
 * registered SQL function: both cost the same per row (measured), and the
 * store does not hand out its database handle.
 */
export function bm25Score(blob: Uint8Array): number {
  const m = new Uint32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  const p = m[0];
  const c = m[1];
  const avg = 3; // after p, c, n
  const len = avg + c;
  const hits = len + c;
  let score = 0;
  for (let col = 0; col < c; col++) {
    const dl = m[len + col];
    const norm = K1 * (1 - B + (B * dl) / (m[avg + col] || 1));
    for (let ph = 0; ph < p; ph++) {
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

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** Words, or single CJK characters (a CJK run has no spaces to split it into words). */
const SNIPPET_TOKEN = new RegExp(`${CJK_CHAR.source}|(?:(?!${CJK_CHAR.source})[\\p{L}\\p{N}])+`, 'gu');

/**
 * A window of about `size` words around the densest run of query-word
 * matches (each word a prefix, accents ignored as the index ignores them),
 * matched words in [brackets], cut ends marked with … A CJK query word
 * matches its characters in sequence; CJK characters count as half a word.
 */
export function snippetOf(text: string, words: string[], size = 12): string {
  // Radicals and full-width forms read as the characters they stand for (the snippet shows those too).
  text = foldCompat(text);
  words = words.map(foldCompat);
  const tokens: Array<{ start: number; end: number; hit: boolean; text: string }> = [];
  const cjkWords = words.filter(hasCjk).map((w) => Array.from(w.normalize('NFC')));
  const wanted = words.filter((w) => !hasCjk(w)).map(fold);
  for (let m = SNIPPET_TOKEN.exec(text); m; m = SNIPPET_TOKEN.exec(text)) {
    const t = fold(m[0]);
    tokens.push({ start: m.index, end: m.index + m[0].length, hit: wanted.some((w) => t.startsWith(w)), text: m[0].normalize('NFC') });
  }
  if (!tokens.length) return '';
  for (const chars of cjkWords)
    for (let i = 0; i + chars.length <= tokens.length; i++)
      if (chars.every((c, k) => tokens[i + k].text === c)) for (let k = 0; k < chars.length; k++) tokens[i + k].hit = true;
  if (cjkWords.length) size *= 2;
  // The window start with the most hits; the earliest wins a tie.
  let bestFrom = 0;
  let bestHits = -1;
  let inWindow = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].hit) inWindow++;
    if (i >= size && tokens[i - size].hit) inWindow--;
    const from = Math.max(0, i - size + 1);
    if (inWindow > bestHits) {
      bestHits = inWindow;
      bestFrom = from;
    }
  }
  // Start two words (four CJK characters) before the window's first hit, so the hit has some context.
  const firstHit = tokens.findIndex((t, i) => i >= bestFrom && t.hit);
  const from = Math.max(0, firstHit - (cjkWords.length ? 4 : 2));
  const to = Math.min(tokens.length, from + size);
  let out = from > 0 ? '…' : '';
  let at = tokens[from].start;
  for (let i = from; i < to; i++) {
    const t = tokens[i];
    const gap = text.slice(at, t.start).replace(/\s+/g, ' ');
    // Hits that touch (the characters of a CJK word) share one bracket.
    const joined = t.hit && !gap && i > from && tokens[i - 1].hit;
    if (joined) out = out.slice(0, -1);
    out += gap;
    out += t.hit ? `${joined ? '' : '['}${text.slice(t.start, t.end)}]` : text.slice(t.start, t.end);
    at = t.end;
  }
  return to < tokens.length ? `${out}…` : out;
}
