import type { default as searchFn } from 'approx-string-match' with { 'resolution-mode': 'import' };

// approx-string-match ships as ESM only; esbuild's bundle and tsx both load it synchronously.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const search = (require('approx-string-match') as { default: typeof searchFn }).default;

/**
 * Edit distance of `a` and `b` when it is at most `k`, else k + 1. Myers'
 * bit-parallel search (approx-string-match) finds `a` in `b` with free ends;
 * a match that leaves part of `b` outside costs those chars too, so the
 * answer is never below the true distance.
 */
export function boundedDistance(a: string, b: string, k: number): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > k) return k + 1;
  let best = k + 1;
  for (const m of search(b, a, k)) best = Math.min(best, m.errors + m.start + (b.length - m.end));
  return best;
}
