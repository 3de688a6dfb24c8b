import assert from 'node:assert/strict';
import type { TextItem } from '../../src/server/ground/pdf/pdfTypes';
import { AnchorIndex } from '../../src/server/ground/text/anchorIndex';
import { foldItems, foldKey, keyString } from '../../src/server/ground/text/fold';
import { locateText } from '../../src/server/ground/text/locate';
import { boundedDistance } from '../../src/server/ground/text/editDistance';

/** One item per line, 10 pt high, 5 pt per character, starting at x = 50. */
function lines(texts: string[], y0 = 100): TextItem[] {
  return texts.map((str, i) => ({ str, x: 50, y: y0 + i * 12, w: str.length * 5, h: 10, fontHeight: 10, eol: true }));
}

const page = lines([
  'Rational polyhedral cones are the ﬁrst objects of this',
  'manual; every cone is given by its Hilbert ba-',
  'sis, computed by the project-and-lift algorithm.',
  'Ｆｕｌｌ－ｗｉｄｔｈ ｆｏｒｍｓ fold to ASCII.',
]);

describe('text module: one folding, one matcher', () => {
  describe('fold', () => {
    it('keeps letters and digits, unfolds ligatures and full-width forms, drops whitespace, hyphens and quotes', () => {
      assert.equal(foldKey('The ﬁrst “Pen”,\n exam-\nined — Ｆｕｌｌ ２'), 'thefirstpenexaminedfull2');
      assert.equal(foldKey('soft\u00adhyphen  and\ttabs'), 'softhyphenandtabs');
      assert.equal(foldKey('Ångström naïve'), 'angstromnaive');
    });

    it('maps every key char back to its item and offset (a ligature is two key chars at one offset)', () => {
      const f = foldItems(lines(['a ﬁx', 'ex-', 'am']));
      assert.equal(keyString(f), 'afixexam');
      assert.deepEqual(Array.from(f.itemOf), [0, 0, 0, 0, 1, 1, 2, 2]);
      assert.deepEqual(Array.from(f.offsetOf), [0, 2, 2, 3, 0, 1, 0, 1]);
    });

    it('a surrogate pair (mathematical italic) is one character at one offset', () => {
      const f = foldItems(lines(['x \u{1d44e}b']));
      assert.equal(keyString(f), 'xab');
      assert.deepEqual(Array.from(f.offsetOf), [0, 2, 4]);
    });
  });

  describe('bounded edit distance (approx-string-match)', () => {
    it('is 0 for equal keys and counts one substitution, insertion or deletion', () => {
      assert.equal(boundedDistance('cone', 'cone', 1), 0);
      assert.equal(boundedDistance('hilbert', 'hilbart', 2), 1);
      assert.equal(boundedDistance('hilbert', 'hilbnert', 2), 1);
      assert.equal(boundedDistance('hilbert', 'hilert', 2), 1);
    });
    it('answers k + 1 beyond the bound, and counts text outside the match', () => {
      assert.equal(boundedDistance('hilbert', 'algorithm', 2), 3);
      assert.equal(boundedDistance('abc', 'xxabcxx', 3), 4);
    });
  });

  describe('locate and anchoring agree', () => {
    const index = new AnchorIndex([{ page: 3, items: page, ocr: 0 }]);

    it('a verbatim quote across a hyphenated line break, a ligature and full-width forms: score 1, same rectangle', () => {
      const quote = 'every cone is given by its Hilbert basis, computed by the project-and-lift algorithm.';
      const l = locateText(page, quote);
      const a = index.anchor(quote);
      assert.deepEqual([l.found, l.score, a.anchored, a.score], [true, 1, true, 1]);
      assert.deepEqual(l.rect, { x: a.rect!.x, y: a.rect!.y, w: a.rect!.width, h: a.rect!.height });
      assert.equal(l.rect.y, 112);
      assert.equal(
        l.matchedText,
        'every cone is given by its Hilbert ba- sis, computed by the project-and-lift algorithm.',
      );
      assert.equal(locateText(page, 'the first objects').matchedText, 'the ﬁrst objects');
      assert.equal(
        locateText(page, '(the project-and-lift algorithm.)').matchedText,
        'the project-and-lift algorithm.',
      );
      assert.equal(locateText(page, 'Full-width forms fold').rect!.y, 136);
    });

    it('a quote with a typo anchors with a score below 1', () => {
      const quote = 'Rational polyhedral cones are the frist objects of this manual';
      const l = locateText(page, quote);
      const a = index.anchor(quote);
      assert.equal(l.found, true);
      assert.equal(a.anchored, true);
      assert.equal(l.score, a.score);
      assert.ok(l.score < 1 && l.score >= 0.85, String(l.score));
    });

    it("the page's own words shuffled do not anchor", () => {
      const shuffled = 'the Hilbert cone algorithm manual computed every basis of this polyhedral by';
      const l = locateText(page, shuffled);
      const a = index.anchor(shuffled);
      assert.equal(l.found, false);
      assert.equal(a.anchored, false);
      assert.ok(l.score < 0.85 && a.score < 0.85);
    });

    it('an invented sentence and a paraphrase do not anchor', () => {
      for (const q of [
        'Quantum bananas orbit the purple spreadsheet at dawn.',
        'Polyhedral rational cones are the initial topics in this handbook',
      ]) {
        assert.equal(locateText(page, q).found, false, q);
        assert.equal(index.anchor(q).anchored, false, q);
      }
    });

    it('locate: a page without letters is unreadable; punctuation alone matches nothing', () => {
      assert.equal(locateText(lines(['— … —']), 'anything').status, 'page_unreadable');
      assert.equal(locateText(page, '— …').status, 'no_match');
    });
  });
});
