import assert from 'node:assert/strict';
import { AnchorIndex } from '../../src/server/ground/text/anchorIndex';
import { cardRanges, placeInSection, sectionRanges } from '../../src/server/domain/bundles/excerptPlace';
import type { ParsedCard } from '../../src/server/domain/bundles/parsedResult';
import type { TextItem } from '../../src/server/ground/pdf/pdfTypes';

/** One item per line, 10 pt high, 5 pt per character. */
const lines = (texts: string[]): TextItem[] =>
  texts.map((str, i) => ({ str, x: 50, y: 100 + i * 12, w: str.length * 5, h: 10, fontHeight: 10, eol: true }));

const index = new AnchorIndex([
  { page: 5, items: lines(['Chapter two begins with the INTEGER type and its range.']), ocr: 0 },
  { page: 6, items: lines(['Numbers with a fraction are stored as floats.', 'The REAL type.']), ocr: 0 },
  { page: 7, items: lines(['The REAL type.', 'Its precision is that of a double on every platform.']), ocr: 0 },
]);

const card = (index: number, title: string, parent: number | null): ParsedCard => ({
  index,
  title,
  level: parent === null ? 0 : 1,
  line: index + 1,
  parent,
  children: [],
  texts: [],
  excerpts: [],
});

describe('excerpts that stand on several pages', () => {
  it('the matcher places a verbatim excerpt on each page it stands on', () => {
    const r = index.anchor('The REAL type.');
    assert.deepEqual([r.anchored, r.page, r.others?.map((o) => o.page)], [true, 6, [7]]);
    assert.equal(r.others![0].rect!.y, 100, 'the first line of page 7');
    assert.equal(index.anchor('Its precision is that of a double').others, undefined, 'one page: no others');
  });

  it("the heading's outline section decides; else reading order; else it is not anchored", () => {
    const r = index.anchor('The REAL type.');
    const [bySection] = placeInSection([r], [7, 9]);
    assert.deepEqual([bySection.result.page, bySection.alsoOn, bySection.decidedBy], [7, [6], 'section']);
    assert.equal(bySection.result.rect!.y, 100);
    // A section over both pages: the excerpt before it (page 7) sets the reading order.
    const before = index.anchor('Its precision is that of a double on every platform.');
    const [, inOrder] = placeInSection([before, r], [5, 9]);
    assert.deepEqual([inOrder.result.page, inOrder.decidedBy], [7, 'reading_order']);
    const [first] = placeInSection([r], [5, 9]);
    assert.deepEqual([first.result.page, first.alsoOn], [6, [7]], 'from the section start on');
    const [none] = placeInSection([r], undefined);
    assert.deepEqual(
      [none.result.anchored, none.result.reason, none.alsoOn],
      [false, 'ambiguous', [6, 7]],
      'nothing to decide by',
    );
  });

  it("a heading finds its section by title (or the one title holding it); others take their parent's", () => {
    const ranges = sectionRanges(
      [
        { startPage: 5, title: 'Chapter 2 Types', level: 1 },
        { startPage: 5, title: '2.1 The INTEGER type', level: 2 },
        { startPage: 7, title: '2.2 The REAL type', level: 2 },
        { startPage: 9, title: 'Chapter 3', level: 1 },
      ],
      12,
    );
    assert.deepEqual(
      ranges.map((r) => r.range),
      [
        [5, 9],
        [5, 7],
        [7, 9],
        [9, 12],
      ],
    );
    const cards = [card(0, '', null), card(1, 'Chapter 2: Types', 0), card(2, 'The REAL type', 1), card(3, 'Notes', 2)];
    assert.deepEqual(cardRanges(cards, ranges), [undefined, [5, 9], [7, 9], [7, 9]]);
  });
});
