import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PageData, Rect } from '../../src/server/ground/pdf/pdfTypes';
import { locateText } from '../../src/server/ground/text/locate';
import { extractFile } from '../anchoring/labelledSet';
import { corpusFile } from './pdfCorpus';

const BOOK = '4ti2_manual.pdf';
const PAGES = '5-6';

/** Where a rectangle of the upright page stands once the page is shown turned clockwise by `turn` (/Rotate). */
function turned(r: Rect, turn: 90 | 180 | 270, page: { width: number; height: number }): Rect {
  if (turn === 90) return { x: page.height - r.y - r.h, y: r.x, w: r.h, h: r.w };
  if (turn === 180) return { x: page.width - r.x - r.w, y: page.height - r.y - r.h, w: r.w, h: r.h };
  return { x: r.y, y: page.width - r.x - r.w, w: r.h, h: r.w };
}

const inside = (a: Rect, b: Rect, tol: number) =>
  a.x >= b.x - tol && a.y >= b.y - tol && a.x + a.w <= b.x + b.w + tol && a.y + a.h <= b.y + b.h + tol;

/**
 * Layout blocks of a page shown turned (/Rotate 90, 180, 270: its text runs
 * down, left or up): the same blocks as upright, with the same labels, their
 * rectangles on the shown page, where anchor rectangles are (before: left in
 * the runs' frame, off the page, with page numbers read as paragraphs).
 */
describe('layout blocks on turned pages (qpdf --rotate) stand on the shown page, as highlights do', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'sb-rotated-'));
  const upright = join(dir, 'upright.pdf');
  let base: PageData[];
  const shown = new Map<90 | 180 | 270, PageData[]>();
  before(async () => {
    execFileSync('qpdf', [corpusFile(BOOK), '--pages', '.', PAGES, '--', upright]);
    base = await extractFile(upright);
    for (const turn of [90, 180, 270] as const) {
      const file = join(dir, `turned-${turn}.pdf`);
      execFileSync('qpdf', [`--rotate=+${turn}`, upright, file]);
      shown.set(turn, await extractFile(file));
    }
  });

  for (const turn of [90, 180, 270] as const) {
    it(`/Rotate ${turn}: the upright page's blocks, turned onto the shown page (within 0.05 pt), each holding its quotes' highlights`, () => {
      for (const [i, page] of shown.get(turn)!.entries()) {
        const up = base[i];
        assert.ok(up.blocks.length >= 4, `page ${i + 1} has ${up.blocks.length} blocks`);
        assert.deepEqual(
          page.blocks.map((b) => [b.text, b.label]),
          up.blocks.map((b) => [b.text, b.label]),
        );
        const size = { width: page.width, height: page.height };
        for (const [k, b] of page.blocks.entries()) {
          const want = turned(up.blocks[k].rect, turn, up);
          for (const key of ['x', 'y', 'w', 'h'] as const)
            assert.ok(
              Math.abs(b.rect[key] - want[key]) <= 0.05,
              `block ${k} ${JSON.stringify(b.rect)} ≠ ${JSON.stringify(want)}`,
            );
          assert.ok(inside(b.rect, { x: 0, y: 0, w: size.width, h: size.height }, 0.5), `block ${k} on the page`);
          const quote = b.text.split(/\s+/).slice(0, 6).join(' ');
          if (b.label !== 'paragraph' || quote.length < 30) continue;
          const loc = locateText(page.items, quote);
          assert.ok(loc.found && loc.rects, `${quote} located`);
          // The highlight's glyph band reaches past the block's item boxes (descenders): its middle is in the block.
          for (const r of loc.rects) {
            const mid = { x: r.x + r.w / 2, y: r.y + r.h / 2, w: 0, h: 0 };
            assert.ok(inside(mid, b.rect, 0), `${quote}: ${JSON.stringify(r)} in ${JSON.stringify(b.rect)}`);
          }
        }
      }
    });
  }
});
