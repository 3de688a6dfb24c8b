import assert from 'node:assert/strict';
import { jsonPieces } from '../../src/server/api/http/jsonBody';

describe('jsonPieces: a long JSON answer in small pieces', () => {
  const node = (i: number) => ({
    noteid: `N-${i}`,
    parent: i ? `N-${i - 1}` : null,
    title: `card ${i} «é» 细胞 \u2028 "q"`,
    page: i % 3 ? null : i,
    folded: i % 2 === 0,
  });

  it('short answers are left to koa (undefined)', () => {
    assert.equal(jsonPieces({ a: 1, nodes: Array.from({ length: 32 }, (_, i) => node(i)) }), undefined);
    assert.equal(jsonPieces({}), undefined);
  });

  for (const n of [33, 200, 1281, 10_000]) {
    it(`${n} nodes: the pieces joined are JSON.stringify's bytes, each piece small`, () => {
      const value = {
        bridgeApiVersion: '1',
        topicid: 'T',
        skipped: undefined,
        fn: () => 1,
        nodes: Array.from({ length: n }, (_, i) => node(i)),
        count: n,
        nested: { a: [1, 2] },
      };
      const pieces = jsonPieces(value)!;
      assert.ok(pieces.length > 1);
      assert.equal(pieces.join(''), JSON.stringify(value));
      assert.ok(
        pieces.every((p) => p.length < 64 * 1024),
        'every piece under 64k characters',
      );
    });
  }

  it('two long arrays, one first; an undefined value first is left out', () => {
    const value = {
      gone: undefined,
      a: Array.from({ length: 40 }, (_, i) => i),
      b: 'x',
      c: Array.from({ length: 2000 }, (_, i) => [i, null]),
    };
    assert.equal(jsonPieces(value)!.join(''), JSON.stringify(value));
  });
});
