import type { KeyToken } from './tokenize';

/**
 * What the alignment's score is capped by, beside its coverage: how much of
 * the quote is matched in order, and how much of its rare words is matched,
 * the need growing as the quote gets shorter (a short shuffle lines up by
 * chance). Chosen with the labelled set and the producers' set
 * (test/anchoring/).
 */

/** Page tokens a quote token may stand from its neighbour's and still count as next to it (a footnote mark, a split item). */
const NEAR = 3;
/** Quote tokens in a row matched in order that count as a run (two words in a row are common in any shuffle). */
const MIN_RUN = 3;
/** A rare word: a token of this many key chars or more. */
const RARE_CHARS = 6;
/** Share of the quote's rare-word weight that must be matched. */
export const RARE_NEED = 0.75;
/** Share of the quote's weight that must be matched in order, by quote length in tokens: a short quote needs more. */
export const orderedNeed = (tokens: number) => (tokens <= 6 ? 0.9 : tokens <= 10 ? 0.8 : 0.65);

/**
 * ordered: the share of the quote's weight in runs of at least MIN_RUN
 * tokens, each matched right after the previous one's match (within NEAR
 * page tokens). A quote of the page, in any extractor's line
 * order, keeps its words in runs; the page's own words shuffled keep almost
 * none, however well each word alone is matched. rare: the share of the
 * weight of its long words that is matched at all (1 when it has none).
 */
export function coverage(
  q: readonly KeyToken[],
  pairs: readonly [number, number][],
  total: number,
): { ordered: number; rare: number } {
  const lo = new Int32Array(q.length).fill(-1);
  const hi = new Int32Array(q.length).fill(-1);
  for (const [i, j] of pairs) {
    if (lo[i] < 0 || j < lo[i]) lo[i] = j;
    if (j > hi[i]) hi[i] = j;
  }
  const next = (a: number, b: number) => lo[a] >= 0 && lo[b] >= 0 && lo[b] - hi[a] >= 1 && lo[b] - hi[a] <= NEAR;
  let inOrder = 0;
  let rare = 0;
  let rareMatched = 0;
  // Runs of quote tokens each matched next to the one before; a run counts when it is MIN_RUN long or the whole quote.
  // A run goes on over one quote token missing from the page (a typo) when the tokens either side stand near.
  const bridged = (a: number) =>
    a + 2 < q.length && lo[a + 1] < 0 && lo[a] >= 0 && lo[a + 2] - hi[a] >= 1 && lo[a + 2] - hi[a] <= NEAR + 1;
  for (let i = 0; i < q.length;) {
    let j = i;
    while (j + 1 < q.length && (next(j, j + 1) || bridged(j))) j += next(j, j + 1) ? 1 : 2;
    let run = 0;
    for (let k = i; k <= j; k++) if (lo[k] >= 0) run++;
    if (lo[i] >= 0 && (run >= MIN_RUN || j - i + 1 === q.length))
      for (let k = i; k <= j; k++) if (lo[k] >= 0) inOrder += q[k].weight;
    i = j + 1;
  }
  for (let i = 0; i < q.length; i++) {
    if (q[i].key.length < RARE_CHARS) continue;
    rare += q[i].weight;
    if (lo[i] >= 0) rareMatched += q[i].weight;
  }
  return { ordered: total > 0 ? inOrder / total : 0, rare: rare > 0 ? rareMatched / rare : 1 };
}
