import assert from 'node:assert/strict';
import type { TextItem } from '../../src/server/ground/pdf/pdfTypes';
import { ACCEPT_SCORE } from '../../src/server/ground/text/align';
import { AnchorIndex } from '../../src/server/ground/text/anchorIndex';
import { unionOf } from '../../src/server/ground/text/keySpan';
import { locateText } from '../../src/server/ground/text/locate';
import { foldedTokens, tokenize } from '../../src/server/ground/text/tokenize';

/** One item per line, 10 pt high, 5 pt per character; `x0` per column. */
function lines(texts: string[], y0 = 100, x0 = 50): TextItem[] {
  return texts.map((str, i) => ({ str, x: x0, y: y0 + i * 12, w: str.length * 5, h: 10, fontHeight: 10, eol: true }));
}

const prose = lines([
  'A careful matcher keeps the order of the words it finds',
  'and pays a small price for every line it has to skip,',
  'so a shuffled sentence made of the same words scores low.',
  'Running head of the chapter',
  'Hyphenation splits a long word at the end of a line and',
  'the second half starts the next line of the col-',
  'umn; the ﬁrst ligature and Ｆｕｌｌ－ｗｉｄｔｈ letters fold.',
]);

describe('text: the token alignment', () => {
  it('tokenize: words of Latin text, one token per CJK character, offsets into the text', () => {
    assert.deepEqual(
      tokenize('The ﬁrst 光合作用!').map((t) => t.key),
      ['the', 'first', '光', '合', '作', '用'],
    );
    const t = tokenize('soft\u00adhyphen, two');
    assert.deepEqual(
      t.map((x) => [x.key, x.from, x.to]),
      [
        ['softhyphen', 0, 11],
        ['two', 13, 16],
      ],
    );
  });

  it('tokenize: the shortcuts for ASCII and ASCII with Han give the whole folding’s tokens, offsets included', () => {
    // Letters, digits, hyphens at line ends, apostrophes, 、。, common and rare Han, and the block's edges.
    const alphabet = [
      'a',
      'Z',
      'q',
      '7',
      ' ',
      '\n',
      '-',
      "'",
      '.',
      ',',
      '\t',
      '叶',
      '绿',
      '体',
      '一',
      '\u9fef',
      '\u4e00',
      '。',
      '、',
      'ab',
      'Cd9',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let han = 0;
    for (let n = 0; n < 2000; n++) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 30) },
        () => alphabet[Math.floor(next() * alphabet.length)],
      ).join('');
      if (/[\u4e00-\u9fef]/.test(text)) han++;
      assert.deepEqual(tokenize(text), foldedTokens(text), JSON.stringify(text));
    }
    assert.ok(han > 1000, 'most texts take the Han shortcut');
    // Outside the shortcut's alphabet, the whole folding: full-width forms, kana, a compatibility ideograph.
    assert.deepEqual(
      tokenize('Ｆｕｌｌ 叶ミト\uf900').map((t) => t.key),
      ['full', '叶', 'ミ', 'ト', '\u8c48'],
    );
  });

  it('a line inserted by the page between the quote’s lines (a running head) is skipped, not drawn', () => {
    const quote = 'so a shuffled sentence made of the same words scores low. Hyphenation splits a long word at the end';
    const r = locateText(prose, quote);
    assert.equal(r.found, true);
    assert.ok(r.score >= ACCEPT_SCORE && r.score < 1, String(r.score));
    assert.deepEqual(
      r.rects!.map((x) => x.y),
      [124, 148],
      'one rect per quoted line, none on the running head (y 136)',
    );
  });

  it('another extractor’s column order (the right column’s line first) anchors with one rect per fragment', () => {
    const page = [
      ...lines(['Columns are read top to bottom by one', 'extractor and across the page by another.'], 100, 50),
      ...lines(
        ['Search results are ranked by relevance and', 'the snippet shows the words around the match.'],
        100,
        320,
      ),
    ];
    // pdftotext -layout reads across: left line 1, right line 1, left line 2.
    const quote = 'by one Search results are ranked by relevance and extractor and across the page';
    const r = locateText(page, quote);
    assert.equal(r.found, true, String(r.score));
    assert.equal(r.rects!.length, 3);
    assert.deepEqual(
      r.rects!.map((x) => [x.x >= 300, x.y]),
      [
        [false, 100],
        [true, 100],
        [false, 112],
      ],
    );
  });

  it('a line-end hyphenation, a ligature and full-width forms match the plain words (score 1)', () => {
    const r = locateText(
      prose,
      'the second half starts the next line of the column; the first ligature and Full-width letters fold.',
    );
    assert.equal(r.found, true);
    assert.equal(r.score, 1);
    // A quote that writes the hyphen as the page does not (the word joined, one word apart): the split word still lines up.
    const joined = locateText(prose, 'starts the nxet line of the column the first ligature');
    assert.equal(joined.found, true, String(joined.score));
    assert.deepEqual(
      joined.rects!.map((r) => r.y),
      [160, 172],
      '"col-" and "umn" both drawn',
    );
  });

  it('small edits inside words anchor below 1', () => {
    const r = locateText(prose, 'A carefull matcher keps the order of the wrods it finds and pays a small price');
    assert.equal(r.found, true);
    assert.ok(r.score < 1 && r.score >= ACCEPT_SCORE, String(r.score));
  });

  it('the page’s words shuffled and a paraphrase do not anchor', () => {
    for (const q of [
      'words the skip order line small finds careful price keeps matcher a of',
      'sentence low same scores the of words a made shuffled so',
      'A cautious matcher preserves the sequence of terms it locates and pays a little cost',
      'Every skipped line costs the careful matcher a small price, keeping word order',
    ]) {
      const r = locateText(prose, q);
      assert.equal(r.found, false, `${q}: ${r.score}`);
      assert.ok(r.score < ACCEPT_SCORE);
    }
  });

  it('Chinese text across a line break: lines join without a space, one rect per line', () => {
    const page = lines(['光合作用是植物利用光能', '把二氧化碳和水合成有机物的过程。', '叶绿体是进行光合作用的场所。']);
    const r = locateText(page, '植物利用光能把二氧化碳和水合成有机物');
    assert.deepEqual([r.found, r.score], [true, 1]);
    assert.equal(r.rects!.length, 2);
    assert.equal(r.matchedText, '植物利用光能把二氧化碳和水合成有机物');
    const fuzzy = locateText(page, '植物利用光能，把二氧化碳和水合成为有机物');
    assert.equal(fuzzy.found, true, String(fuzzy.score));
    const index = new AnchorIndex([{ page: 1, items: page, ocr: 0 }]);
    assert.equal(index.anchor('光合作用').anchored, true, 'four CJK characters are enough to anchor');
  });

  it('a two-line quote gets two rects whose union is rect, in locate and in anchoring alike', () => {
    const quote = 'and pays a small price for every line it has to skip, so a shuffled sentence';
    const l = locateText(prose, quote);
    assert.equal(l.rects!.length, 2);
    assert.deepEqual(unionOf(l.rects!), l.rect);
    assert.deepEqual(
      l.rects!.map((r) => r.y),
      [112, 124],
    );
    const a = new AnchorIndex([{ page: 7, items: prose, ocr: 0 }]).anchor(quote);
    assert.equal(a.rects!.length, 2);
    assert.deepEqual(
      a.rects!.map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })),
      l.rects,
    );
    assert.deepEqual(a.rect, { x: l.rect!.x, y: l.rect!.y, width: l.rect!.w, height: l.rect!.h });
  });
});
