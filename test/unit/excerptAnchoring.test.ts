import assert from 'node:assert/strict';
import { AnchorIndex } from '../../src/server/ground/text/anchorIndex';
import { foldKey as textKey } from '../../src/server/ground/text/fold';
import type { TextItem } from '../../src/server/ground/pdf/pdfTypes';

/** One item per line, 10 pt high, 5 pt per character, starting at x = 50. */
function lines(texts: string[], y0 = 100): TextItem[] {
  return texts.map((str, i) => ({ str, x: 50, y: y0 + i * 12, w: str.length * 5, h: 10, fontHeight: 10, eol: true }));
}

const page12 = lines([
  'The ﬁrst picture is drawn with a “default” pen; its',
  'line width is 0.5 bp. Every path is exam-',
  'ined before it is stroked —  whitespace   varies.',
]);
const page13 = lines([
  'Completely different text on the next page about arrays',
  'and their elements, with a café naïve résumé.',
]);
const index = new AnchorIndex([
  { page: 12, items: page12, ocr: 0 },
  { page: 13, items: page13, ocr: 0 },
]);

describe('excerpt anchoring', () => {
  it('keys ignore case, ligatures, quotes, hyphens, whitespace and diacritics', () => {
    assert.equal(textKey('The ﬁrst “Pen”, exam- ined — café'), 'thefirstpenexaminedcafe');
  });

  it('a verbatim quote over a page break is placed on the page holding most of it, with rects on that page only', () => {
    const late = index.anchor('whitespace varies. Completely different text on the next page about arrays');
    assert.deepEqual([late.anchored, late.page, late.score], [true, 13, 1]);
    assert.deepEqual(
      late.rects!.map((r) => r.y),
      [100],
      'the first line of page 13 only',
    );
    assert.equal(late.rect!.x, 50);
    const early = index.anchor('Every path is examined before it is stroked — whitespace varies. Completely');
    assert.deepEqual([early.anchored, early.page], [true, 12]);
    assert.ok(
      early.rects!.every((r) => r.y >= 112 && r.y <= 124),
      JSON.stringify(early.rects),
    );
  });

  it('anchors a verbatim sentence across a line break, a hyphenation, a ligature and typographic quotes', () => {
    const r = index.anchor('The first picture is drawn with a "default" pen; its line width is 0.5 bp.');
    assert.equal(r.anchored, true);
    assert.equal(r.page, 12);
    assert.equal(r.score, 1);
    // Spans the first two lines: from x = 50 on line 1 to "bp." on line 2.
    assert.equal(r.rect!.x, 50);
    assert.equal(r.rect!.y, 100);
    assert.equal(r.rect!.height, 22);
    const hy = index.anchor('Every path is examined before it is stroked');
    assert.equal(hy.anchored, true);
    assert.equal(hy.page, 12);
    assert.equal(hy.rect!.y, 112, 'starts on line 2');
    // The union of "Every path is exam-" (from x = 160; the line-end hyphen is the printed word's, so it is covered) and
    // "ined before it is stroked" (from x = 50).
    assert.deepEqual(hy.rect, { x: 50, y: 112, width: 160 + 'Every path is exam-'.length * 5 - 50, height: 22 });
  });

  it('finds the right page, and diacritics do not matter', () => {
    const r = index.anchor('with a cafe naive resume');
    assert.equal(r.anchored, true);
    assert.equal(r.page, 13);
    assert.equal(r.rect!.y, 112);
  });

  it('tolerates a small slip (score below 1) but not a paraphrase or an invented sentence', () => {
    const slip = index.anchor('Completely diferent text on the next page about arrays');
    assert.equal(slip.anchored, true);
    assert.ok(slip.score < 1 && slip.score >= 0.85, String(slip.score));
    const para = index.anchor('The initial image gets drawn using the standard pen');
    assert.equal(para.anchored, false);
    assert.ok(para.reason === 'no_match' || para.reason === 'below_threshold');
    const invented = index.anchor('Quantum bananas orbit the purple spreadsheet at dawn.');
    assert.deepEqual([invented.anchored, invented.reason], [false, 'no_match']);
  });

  it('close but not verbatim is below_threshold; empty or too short is invalid_excerpt', () => {
    const near = index.anchor('Completely different words on the next sheet regarding arrays');
    assert.equal(near.anchored, false);
    assert.equal(near.reason, 'below_threshold');
    assert.equal(index.anchor('').reason, 'invalid_excerpt');
    assert.equal(index.anchor('a, b.').reason, 'invalid_excerpt');
  });

  it('missing_info without readable text; no_coordinates when the page has no positions', () => {
    const empty = new AnchorIndex([{ page: 1, items: [], ocr: 2 }]);
    assert.equal(empty.anchor('anything at all here').reason, 'missing_info');
    const flat = new AnchorIndex([
      { page: 4, items: lines(['text without any boxes at all']).map((i) => ({ ...i, w: 0, h: 0 })), ocr: 1 },
    ]);
    const r = flat.anchor('text without any boxes');
    assert.deepEqual([r.anchored, r.reason, r.page], [false, 'no_coordinates', 4]);
  });
});
