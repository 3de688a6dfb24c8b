import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PageData, Rect } from '../../src/server/ground/pdf/pdfTypes';
import { locateText } from '../../src/server/ground/text/locate';
import { decodeItems, encodeItems } from '../../src/server/ground/cache/storedPageCodec';
import { textUnderQuads } from '../../src/server/domain/annotations/quadText';
import { extractFile } from '../anchoring/labelledSet';
import {
  CHROMIUM_QUOTES,
  writeChromiumVertical,
  writeVerticalFontPdf,
  type VerticalFont,
} from '../anchoring/verticalPdfs';

/** Page 1 drawn by poppler (pdftoppm, an extractor of its own) in grey: ink where a pixel is darker than half. */
function inkOf(pdf: string, dpi: number): { ink: (x: number, y: number) => boolean; scale: number } {
  const out = pdf.replace(/\.pdf$/, '-ink');
  execFileSync('pdftoppm', ['-f', '1', '-l', '1', '-r', String(dpi), '-gray', '-singlefile', pdf, out]);
  const buf = readFileSync(`${out}.pgm`);
  // P5 header: magic, width, height, maxval, each followed by one whitespace byte.
  const fields = buf.subarray(0, 64).toString('latin1').split(/\s+/, 4);
  const [w, h] = [Number(fields[1]), Number(fields[2])];
  const start = buf.length - w * h;
  return { ink: (x, y) => x >= 0 && y >= 0 && x < w && y < h && buf[start + y * w + x] < 128, scale: dpi / 72 };
}

/** The quote's rectangle as the page cache gives it back (its turn and metrics survive it). */
function locate(page: PageData, quote: string): Rect[] {
  const items = decodeItems(encodeItems(page.items));
  const loc = locateText(items, quote);
  assert.ok(loc.found && loc.rects, `${quote} located`);
  // NFKC: Chromium's ToUnicode gives Kangxi radicals (⽔ for 水); pdf.js reads a TJ gap as a space.
  const text = textUnderQuads(items, loc.rects).normalize('NFKC').replace(/\s/g, '');
  assert.equal(text, quote, 'the text under the rectangles is the quote');
  return loc.rects;
}

/**
 * CJK set in columns: a quote's rectangle is one per column and covers
 * exactly its glyphs. Before, a vertical font's run was read as a line
 * across the page (a 10 pt sliver at the column's top: 100+ pt off), and
 * Chromium's upright glyphs took a Latin descent, so a column's highlight
 * ran 3 pt into the glyph below its last one.
 */
describe('anchoring: glyph-true rectangles on CJK columns (vertical fonts, Chromium vertical-rl)', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'sb-vertical-'));
  let font: VerticalFont;
  let fontPage: PageData;
  let chromium: string;
  let chromiumPage: PageData;
  before(async () => {
    font = await writeVerticalFontPdf(dir);
    fontPage = (await extractFile(font.file))[0];
    chromium = writeChromiumVertical(dir);
    chromiumPage = (await extractFile(chromium))[0];
  });

  /** Each quote of the vertical font: one rectangle within 0.1 pt of its em boxes (turned as the page is shown). */
  function emBoxCheck(page: PageData, turn: (r: Rect) => Rect): void {
    let worst = 0;
    for (const quote of font.quotes) {
      const column = font.boxes.find((c) =>
        c
          .map((g) => g.char)
          .join('')
          .includes(quote),
      )!;
      const at = column
        .map((g) => g.char)
        .join('')
        .indexOf(quote);
      const [first, last] = [column[at].box, column[at + [...quote].length - 1].box];
      const expected = turn({ x: first.x, y: first.y, w: first.w, h: last.y + last.h - first.y });
      const rects = locate(page, quote);
      assert.equal(rects.length, 1, `${quote}: ${JSON.stringify(rects)}`);
      const r = rects[0];
      const off = Math.max(
        Math.abs(r.x - expected.x),
        Math.abs(r.y - expected.y),
        Math.abs(r.x + r.w - (expected.x + expected.w)),
        Math.abs(r.y + r.h - (expected.y + expected.h)),
      );
      worst = Math.max(worst, off);
      assert.ok(off <= 0.1, `${quote}: ${JSON.stringify(r)} against ${JSON.stringify(expected)}`);
    }
    console.log(`      worst point off the em boxes: ${worst.toFixed(2)}`);
  }

  it('a vertical font (Identity-V, W2, TJ gap): each quote one rectangle, within 0.1 pt of its glyphs’ em boxes', () => {
    emBoxCheck(fontPage, (r) => r);
  });

  it('the same page shown turned (/Rotate 90): its columns lie across, the rectangles turned with them', async () => {
    const file = join(dir, 'identity-v-90.pdf');
    execFileSync('qpdf', ['--rotate=+90', font.file, file]);
    const page = (await extractFile(file))[0];
    // Shown turned clockwise: a point (x, y) of the upright page stands at (upright height - y, x).
    emBoxCheck(page, (r) => ({ x: page.width - r.y - r.h, y: r.x, w: r.h, h: r.w }));
  });

  it('Chromium vertical-rl: each quote one rectangle, no glyph cut at its ends, its ends within 1 pt of the ink', () => {
    const { ink, scale } = inkOf(chromium, 288);
    // Rows of ink across the rectangle's width, in points: any ink in [a, b) of page y.
    const inkIn = (r: Rect, a: number, b: number) => {
      for (let y = Math.ceil(a * scale); y < b * scale; y++)
        for (let x = Math.ceil(r.x * scale); x < (r.x + r.w) * scale; x++) if (ink(x, y)) return true;
      return false;
    };
    const worst: string[] = [];
    for (const quote of CHROMIUM_QUOTES) {
      const rects = locate(chromiumPage, quote);
      assert.equal(rects.length, 1, `${quote}: ${JSON.stringify(rects)}`);
      const r = rects[0];
      const [top, bottom] = [r.y, r.y + r.h];
      assert.ok(!inkIn(r, top - 0.25, top + 0.25), `${quote}: the rectangle's top ${top} cuts a glyph`);
      assert.ok(!inkIn(r, bottom - 0.25, bottom + 0.25), `${quote}: the rectangle's bottom ${bottom} cuts a glyph`);
      assert.ok(inkIn(r, top, top + 1), `${quote}: no ink within 1 pt below the top ${top}`);
      assert.ok(inkIn(r, bottom - 1, bottom), `${quote}: no ink within 1 pt above the bottom ${bottom}`);
      worst.push(`${quote} ${top.toFixed(2)}..${bottom.toFixed(2)}`);
    }
    console.log(`      rectangles: ${worst.join(', ')}`);
  });
});
