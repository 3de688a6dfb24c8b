import { boundedDistance } from './editDistance';
import { coverage, orderedNeed, RARE_NEED } from './coverage';
import { LINE_END, LINE_START, type KeyToken } from './tokenize';

/**
 * The one approximate matcher: a local alignment of a quote's tokens against
 * a page's tokens. A quote token gains its weight times its similarity to the
 * page token it lines up with; quote tokens missing from the page gain
 * nothing. Page tokens the quote skips (an inserted line, a column cell, a
 * footnote mark) cost a gap; going back or far ahead in the page (another
 * extractor's column order) costs a jump. Order is rewarded: a shuffled
 * sentence needs a gap or a jump between every two words and scores low.
 * Gaps and jumps between whole lines cost less than ones inside a line:
 * extractors disagree about the order of lines, not of words in a line.
 * Score = best total / quote weight, 0..1, capped by the share of the
 * quote matched in runs of words and of its rare words matched, which a
 * shorter quote needs more of (coverage.ts): one global threshold on the
 * total alone let short shuffles of a page's words through.
 */

/** Costs in units of key chars. Chosen with the labelled set (bench/anchoring.bench.ts). */
export const GAP_OPEN = 3;
export const GAP_EXTEND = 0.15;
export const JUMP = 8;
/** Taken off a gap's or a jump's cost for each end of it that is a line's edge. */
export const LINE_EDGE_BONUS = 3;

/** A quote whose score is at least this is on the page (locate, anchoring, card creation alike). */
export const ACCEPT_SCORE = 0.8;
/** Between this and ACCEPT_SCORE an excerpt is "below_threshold" (close, not verbatim); under it, "no_match". */
export const REJECT_SCORE = 0.5;

/** Edits tolerated inside one token, by its length. */
const slack = (len: number) => (len <= 3 ? 0 : len <= 5 ? 1 : len <= 9 ? 2 : 3);

const simCache = new Map<string, number>();
const bag = new Int32Array(128);

/** Chars of q that p lacks, counted as multisets (a lower bound of their edit distance); 0 when not ASCII. */
function bagDistance(q: string, p: string): number {
  for (let i = 0; i < p.length; i++) if (p.charCodeAt(i) >= 128) return 0;
  for (let i = 0; i < q.length; i++) if (q.charCodeAt(i) >= 128) return 0;
  for (let i = 0; i < p.length; i++) bag[p.charCodeAt(i)]++;
  let missing = 0;
  for (let i = 0; i < q.length; i++) if (bag[q.charCodeAt(i)]-- <= 0) missing++;
  bag.fill(0);
  return missing;
}

/** 0..1: 1 for the same key, 1 − distance / length within the token's slack, else 0. */
export function tokenSimilarity(q: string, p: string): number {
  if (q === p) return 1;
  const k = slack(q.length);
  if (k === 0 || Math.abs(q.length - p.length) > k || bagDistance(q, p) > k) return 0;
  const id = `${q}\u0000${p}`;
  let s = simCache.get(id);
  if (s === undefined) {
    const d = boundedDistance(q, p, k);
    s = d > k ? 0 : 1 - d / q.length;
    if (simCache.size > 200_000) simCache.clear();
    simCache.set(id, s);
  }
  return s;
}

/** `q` is `a` followed by `b` (a word split by a line-end hyphen or by two text items). */
const joins = (q: string, a: string, b: string) => q.length === a.length + b.length && q.startsWith(a) && q.endsWith(b);

export interface Alignment {
  /** 0..1, three decimals. */
  score: number;
  /** Page token indices the quote matched, in quote order (several per quote token when a word was split). */
  matched: number[];
  /** 0..1: the share of the quote's weight matched in runs of words in order (see coverage()). */
  ordered: number;
}

// Back-pointers of a cell of A (ended on a page token or skipped a quote token).
const FROM_A = 1;
const FROM_G = 2;
const FROM_START = 3;
const SKIP_QUOTE = 4;
const MERGE_PAGE = 5;
const MERGE_QUOTE = 6;

/** The dynamic-programming tables of one alignment: rows are quote tokens, columns page tokens (both from 1). */
interface Grid {
  q: readonly KeyToken[];
  p: readonly KeyToken[];
  /** Row width: n + 1. */
  W: number;
  /** Best score of a cell that ended on a page token (or skipped a quote token). */
  A: Float64Array;
  /** Best score of a cell inside a gap (page tokens skipped). */
  G: Float64Array;
  backA: Uint8Array;
  /** 1: opened from A, 2: extended. */
  backG: Uint8Array;
  /** Gain of the token step into the cell, for the trace. */
  gainAt: Float64Array;
  /**
   * start[i]: best way to be at quote token i anywhere in the page (free at i = 0, else a jump);
   * entering the page at a line's start adds the bonus (jumps only, see enter()).
   */
  start: Float64Array;
  jumped: Float64Array;
  startCol: Int32Array;
}

function newGrid(q: readonly KeyToken[], p: readonly KeyToken[]): Grid {
  const m = q.length;
  const W = p.length + 1;
  return {
    q,
    p,
    W,
    A: new Float64Array((m + 1) * W).fill(-Infinity),
    G: new Float64Array((m + 1) * W).fill(-Infinity),
    backA: new Uint8Array((m + 1) * W),
    backG: new Uint8Array((m + 1) * W),
    gainAt: new Float64Array((m + 1) * W),
    start: new Float64Array(m + 1),
    jumped: new Float64Array(m + 1).fill(-Infinity),
    startCol: new Int32Array(m + 1).fill(-1),
  };
}

const enter = (g: Grid, i: number, j: number) =>
  Math.max(g.start[i], g.jumped[i] + (g.p[j].edge & LINE_START ? LINE_EDGE_BONUS : 0));

/** Page keys by length, so a quote token is compared once with each distinct key of a length it could match. */
function keysByLength(p: readonly KeyToken[]): Map<number, string[]> {
  const byLength = new Map<number, string[]>();
  for (const key of new Set(p.map((t) => t.key))) {
    const list = byLength.get(key.length);
    if (list) list.push(key);
    else byLength.set(key.length, [key]);
  }
  return byLength;
}

/** The page keys a quote key is similar to, with their similarity. */
function similarKeys(key: string, byLength: Map<number, string[]>): Map<string, number> {
  const sims = new Map<string, number>();
  const k = slack(key.length);
  for (let len = key.length - k; len <= key.length + k; len++) {
    for (const pageKey of byLength.get(len) ?? []) {
      const s = tokenSimilarity(key, pageKey);
      if (s > 0) sims.set(pageKey, s);
    }
  }
  return sims;
}

/** Best local alignment of quote tokens `q` on page tokens `p`; undefined when nothing lines up. */
export function align(q: readonly KeyToken[], p: readonly KeyToken[]): Alignment | undefined {
  const m = q.length;
  const n = p.length;
  if (!m || !n) return undefined;
  let total = 0;
  for (const t of q) total += t.weight;
  const g = newGrid(q, p);
  const byLength = keysByLength(p);
  // Row 0 holds no match (A and G stay -Infinity); start[0] = 0 is the free start.
  for (let i = 1; i <= m; i++) {
    const sims = similarKeys(q[i - 1].key, byLength);
    for (let j = 1; j <= n; j++) fillCell(g, i, j, sims);
    leaveRow(g, i);
  }
  let best = -Infinity;
  let endCol = -1;
  for (let j = 1; j <= n; j++) if (g.A[m * g.W + j] > best) [best, endCol] = [g.A[m * g.W + j], j];
  if (!(best > 0)) return undefined;
  const pairs: [number, number][] = [];
  const matched = trace(g, m, endCol, pairs);
  const { ordered, rare } = coverage(q, pairs, total);
  // The score is the coverage, capped by the order-aware and rare-word coverage its length asks for (see coverage()).
  const cap = ACCEPT_SCORE * Math.min(ordered / orderedNeed(m), rare / RARE_NEED);
  const score = Math.min(best / total, cap);
  return { score: Math.max(0, Math.min(1, Math.round(score * 1000) / 1000)), matched, ordered };
}

/** Cell (i, j) of A and G: quote token i - 1 on page token j - 1, a split word joined, or a page token skipped. */
function fillCell(g: Grid, i: number, j: number, sims: Map<string, number>): void {
  const { q, p, W, A, G } = g;
  const qt = q[i - 1];
  const c = i * W + j;
  const d = (i - 1) * W + (j - 1);
  const st = enter(g, i - 1, j - 1);
  const prev = Math.max(A[d], G[d], st);
  let best = A[(i - 1) * W + j]; // the quote token is not on the page here
  let how = SKIP_QUOTE;
  let gain = 0;
  const s = sims.get(p[j - 1].key) ?? 0;
  const step = qt.weight * s;
  if (prev + step > best) {
    best = prev + step;
    how = A[d] >= G[d] && A[d] >= st ? FROM_A : G[d] >= st ? FROM_G : FROM_START;
    gain = step;
  }
  if (j >= 2 && joins(qt.key, p[j - 2].key, p[j - 1].key)) {
    const e = (i - 1) * W + (j - 2);
    const v = Math.max(A[e], G[e], enter(g, i - 1, j - 2)) + qt.weight;
    if (v > best) [best, how, gain] = [v, MERGE_PAGE, qt.weight];
  }
  if (i >= 2 && joins(p[j - 1].key, q[i - 2].key, qt.key)) {
    const e = (i - 2) * W + (j - 1);
    const v = Math.max(A[e], G[e], enter(g, i - 2, j - 1)) + q[i - 2].weight + qt.weight;
    if (v > best) [best, how, gain] = [v, MERGE_QUOTE, q[i - 2].weight + qt.weight];
  }
  A[c] = best;
  g.backA[c] = how;
  g.gainAt[c] = gain;
  // Skipping page token j - 1; a gap opened after a line's end (a whole inserted line) costs less.
  const open = A[c - 1] - GAP_OPEN + (j >= 2 && p[j - 2].edge & LINE_END ? LINE_EDGE_BONUS / 2 : 0);
  const ext = G[c - 1];
  G[c] = Math.max(open, ext) - GAP_EXTEND;
  g.backG[c] = open >= ext ? 1 : 2;
}

/** A jump leaves from the best cell of the row, a line's end costing less; or restart from nothing. */
function leaveRow(g: Grid, i: number): void {
  let rowBest = -Infinity;
  let col = -1;
  for (let j = 1; j < g.W; j++) {
    const v = g.A[i * g.W + j] - JUMP + (g.p[j - 1].edge & LINE_END ? LINE_EDGE_BONUS : 0);
    if (v > rowBest) [rowBest, col] = [v, j];
  }
  g.jumped[i] = rowBest;
  g.startCol[i] = col;
  g.start[i] = 0;
}

/** The page tokens matched on the best path that ends at (i, j), in quote order; `pairs` gets [quote token, page token] of each. */
function trace(g: Grid, i: number, j: number, pairs: [number, number][]): number[] {
  const { W, backA, backG, gainAt, start, jumped, startCol, p } = g;
  const out: number[] = [];
  let state: 'A' | 'G' = 'A';
  while (i > 0 && j > 0) {
    const c = i * W + j;
    if (state === 'G') {
      state = backG[c] === 1 ? 'A' : 'G';
      j--;
      continue;
    }
    const how = backA[c];
    if (how === SKIP_QUOTE) {
      i--;
      continue;
    }
    if (gainAt[c] > 0) out.push(j - 1);
    if (how === MERGE_PAGE) out.push(j - 2);
    if (gainAt[c] > 0) pairs.push([i - 1, j - 1]);
    if (how === MERGE_PAGE) pairs.push([i - 1, j - 2]);
    if (how === MERGE_QUOTE) pairs.push([i - 2, j - 1]);
    const [pi, pj] = how === MERGE_PAGE ? [i - 1, j - 2] : how === MERGE_QUOTE ? [i - 2, j - 1] : [i - 1, j - 1];
    const from =
      how === FROM_A ? 'A' : how === FROM_G ? 'G' : how === FROM_START ? 'S' : origin(g, pi * W + pj, pi, pj);
    if (from === 'S') {
      // A free start ends the trace; a jump continues at the best cell of the row it left.
      if (start[pi] >= jumped[pi] + (p[pj].edge & LINE_START ? LINE_EDGE_BONUS : 0) || startCol[pi] < 0) break;
      [i, j, state] = [pi, startCol[pi], 'A'];
    } else [i, j, state] = [pi, pj, from];
  }
  return out.reverse();
}

/** Which of A, G or start a merge came from (the same tie order as the forward pass). */
function origin(g: Grid, e: number, i: number, j: number): 'A' | 'G' | 'S' {
  const st = enter(g, i, j);
  if (g.A[e] >= g.G[e] && g.A[e] >= st) return 'A';
  return g.G[e] >= st ? 'G' : 'S';
}
