import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PageData, Rect } from '../../src/server/ground/pdf/pdfTypes';
import { locateText } from '../../src/server/ground/text/locate';
import { decodeItems, encodeItems } from '../../src/server/ground/cache/storedPageCodec';
import { textUnderQuads } from '../../src/server/domain/annotations/quadText';
import { popplerWords, type WordBox } from '../anchoring/geometry';
import { extractFile } from '../anchoring/labelledSet';
import { writeTurnedPdfs, type TurnedCase } from '../anchoring/turnedPdfs';

/** poppler writes a right-to-left word in visual order: the word as read, or reversed. */
const sameWord = (w: WordBox, text: string) => w.text === text || [...w.text].reverse().join('') === text;

/** The quote's words as poppler boxes them, on the line the rectangle crosses. */
function wordsOf(words: WordBox[], quote: string, r: Rect, axis: 'x' | 'y'): WordBox[] {
  const across = (w: WordBox) =>
    axis === 'x'
      ? Math.min(r.y + r.h, w.yMax) - Math.max(r.y, w.yMin) > 0
      : Math.min(r.x + r.w, w.xMax) - Math.max(r.x, w.xMin) > 0;
  return quote.split(' ').map((t) => {
    const w = words.filter((x) => across(x) && sameWord(x, t));
    assert.equal(w.length, 1, `poppler has "${t}" once on the line of ${JSON.stringify(r)}`);
    return w[0];
  });
}

/**
 * Rotated pages (/Rotate 90, 180, 270) and right-to-left runs: a quote's
 * rectangle covers its glyphs along the run within 1 pt of poppler's word
 * boxes (an even share of the run's width misses by points; before, a
 * turned run's rectangle lay across the page, and a right-to-left one was
 * mirrored), and the text under it reads back as the quote.
 */
describe('anchoring: glyph-true rectangles on turned pages and right-to-left runs (poppler word boxes)', function () {
  this.timeout(300_000);
  let cases: TurnedCase[];
  const pages = new Map<string, PageData[]>();
  const words = new Map<string, WordBox[][]>();
  before(async () => {
    cases = await writeTurnedPdfs(mkdtempSync(join(tmpdir(), 'sb-turned-')));
    for (const file of new Set(cases.map((c) => c.file))) {
      pages.set(file, await extractFile(file));
      words.set(file, popplerWords(file));
    }
  });

  it('each quote: one rectangle, its ends within 1 pt of the first and last word along the run', () => {
    const worst: string[] = [];
    for (const c of cases) {
      // Stored and read back as the page cache does: the run's turn and direction survive it.
      const items = decodeItems(encodeItems(pages.get(c.file)![c.page - 1].items));
      for (const quote of c.quotes) {
        const loc = locateText(items, quote);
        assert.ok(loc.found && loc.rects, `${quote} located on page ${c.page}`);
        assert.equal(loc.rects.length, 1, `${quote}: ${JSON.stringify(loc.rects)}`);
        const r = loc.rects[0];
        const ws = wordsOf(words.get(c.file)![c.page - 1], quote, r, c.axis);
        const [lo, hi] = c.axis === 'x' ? (['xMin', 'xMax'] as const) : (['yMin', 'yMax'] as const);
        const [from, to] = c.axis === 'x' ? [r.x, r.x + r.w] : [r.y, r.y + r.h];
        const expected = [Math.min(...ws.map((w) => w[lo])), Math.max(...ws.map((w) => w[hi]))];
        const off = Math.max(Math.abs(from - expected[0]), Math.abs(to - expected[1]));
        worst.push(`p${c.page} ${off.toFixed(2)}`);
        assert.ok(off <= 1, `${quote} on page ${c.page}: ${from}..${to} against ${expected.join('..')}`);
        // Across the run, the rectangle holds the line's words (the glyphs' band, not the next line).
        const [a, b] = c.axis === 'x' ? [r.y, r.y + r.h] : [r.x, r.x + r.w];
        const [wa, wb] = c.axis === 'x' ? [ws[0].yMin, ws[0].yMax] : [ws[0].xMin, ws[0].xMax];
        assert.ok(a < (wa + wb) / 2 && b > (wa + wb) / 2, `${quote} crosses its line: ${JSON.stringify(r)}`);
        assert.equal(textUnderQuads(items, [r]), quote, 'the text under the rectangle is the quote');
      }
    }
    console.log(`      points off poppler (worst end per quote): ${worst.join(', ')}`);
  });
});
