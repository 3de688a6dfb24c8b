import assert from 'node:assert/strict';
import { bestOf, type Candidate } from '../../src/server/ground/search/cardWindow';

describe('card window: bestOf, the n best rows without sorting the window', () => {
  /** What a full stable sort gives: best first, ties in the order the rows came (newest first). */
  const fullSort = (rows: Candidate[]) => [...rows].sort((a, b) => b.score - a.score);

  it('gives the full sort’s first n rows, in its order, for windows with many ties, and grows as n grows', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const size = 1 + Math.floor(next() * 2500);
      // Few distinct scores in some rounds (ties everywhere), many in others.
      const levels = round % 2 ? 5 : 10_000;
      const rows = Array.from({ length: size }, (_, i) => ({
        docid: size - i,
        score: Math.floor(next() * levels) / 7,
      }));
      const want = fullSort(rows);
      for (const n of [1, 21, 42, 63, 500]) {
        const got = bestOf(rows, n);
        assert.ok(got.length >= Math.min(n, size), `at least n rows (size ${size}, n ${n})`);
        assert.deepEqual(got, want.slice(0, got.length), `size ${size}, n ${n}`);
      }
    }
  });

  it('leaves the window as it was (newest first)', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ docid: 1000 - i, score: (i * 37) % 101 }));
    const copy = rows.map((r) => ({ ...r }));
    bestOf(rows, 21);
    assert.deepEqual(rows, copy);
  });
});
