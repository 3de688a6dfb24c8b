import assert from 'node:assert/strict';
import { anchorBoxes, anchorJson } from '../../src/server/domain/cards/anchorRects';

describe('cards: anchor rectangles in notes.source_rect', () => {
  const a = { x: 50, y: 100, width: 200, height: 10 };
  const b = { x: 50, y: 112, width: 120, height: 10 };
  const union = { x: 50, y: 100, width: 200, height: 22 };

  it('an old row (one rectangle) reads as rects = [rect]', () => {
    assert.deepEqual(anchorBoxes(JSON.stringify(a)), { rect: a, rects: [a] });
    assert.deepEqual(anchorBoxes('{"x":1,"y":2,"w":3,"h":4}'), {
      rect: { x: 1, y: 2, width: 3, height: 4 },
      rects: [{ x: 1, y: 2, width: 3, height: 4 }],
    });
    assert.equal(anchorBoxes(null), null);
  });

  it('several rectangles are stored beside the union, which old readers of the column still find at the top level', () => {
    const json = anchorJson(union, [a, b]);
    const raw = JSON.parse(json);
    assert.deepEqual([raw.x, raw.y, raw.width, raw.height], [50, 100, 200, 22]);
    assert.deepEqual(anchorBoxes(json), { rect: union, rects: [a, b] });
    assert.equal(anchorJson(a, [a]), JSON.stringify(a), 'one rectangle keeps the old shape');
  });
});
