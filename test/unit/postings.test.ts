import assert from 'node:assert/strict';
import { hitsOf } from '../../src/server/ground/search/commonTerms';
import { Postings } from '../../src/server/ground/search/postings';

describe('Postings (a common term: docid → hits, typed arrays)', () => {
  it('agrees with a Map after thousands of random sets, removals and appends, past several growths', () => {
    let seed = 11;
    const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const p = new Postings();
    const model = new Map<number, number>();
    let top = 0;
    for (let i = 0; i < 20_000; i++) {
      const r = rand();
      // Mostly new cards at the top (as the card index writes them), some edits and deletions below.
      const docid = r < 0.6 ? ++top : Math.floor(rand() * (top + 2));
      const hits = rand() < 0.25 ? 0 : 1 + Math.floor(rand() * 4);
      p.set(docid, hits);
      if (hits) model.set(docid, hits);
      else model.delete(docid);
    }
    assert.equal(p.length, model.size);
    assert.ok(p.length > 1024, 'grew past its first arrays');
    for (let d = 0; d <= top + 1; d++) assert.equal(p.get(d), model.get(d) ?? 0, `docid ${d}`);
  });

  it('a card that loses the term is removed; one never held reads 0', () => {
    const p = new Postings();
    p.set(5, 2);
    p.set(3, 1);
    p.set(9, 1);
    p.set(5, 0);
    assert.deepEqual([p.get(3), p.get(5), p.get(9), p.get(4), p.length], [1, 0, 1, 0, 2]);
  });
});

describe('hitsOf (a term in an index body, as the simple tokenizer counts it)', () => {
  it('counts whole terms only, at the start, middle and end', () => {
    assert.equal(hitsOf('细胞 胞的 细胞', '细胞'), 2);
    assert.equal(hitsOf('lorem 细胞', '细胞'), 1);
    assert.equal(hitsOf('细胞核 核的 细胞膜', '细胞'), 0, 'inside a longer term (a word) is not the term');
    assert.equal(hitsOf('', '细胞'), 0);
    assert.equal(hitsOf(null, '细胞'), 0);
  });
});
