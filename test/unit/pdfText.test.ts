import assert from 'node:assert/strict';
import { extracted } from './pdfExtracted';
import { pageRect } from '../../src/server/ground/text/glyphBoxes';
import { pdftotext, qpdfBookmarks, qpdfPageCount, wordOverlap, words } from './pdfCorpus';

describe('pdf pipeline: text and outline of the corpus books', function () {
  this.timeout(120_000);

  for (const name of ['4ti2_manual.pdf', 'asymptote.pdf', 'CAD.pdf']) {
    describe(name, () => {
      it('extracts every page once, in PDF order, with positioned items', async () => {
        const book = await extracted(name);
        assert.equal(book.info.pageCount, qpdfPageCount(book.file));
        assert.deepEqual(
          book.pages.map((p) => p.page),
          Array.from({ length: book.info.pageCount }, (_, i) => i + 1),
        );
        for (const p of book.pages) {
          assert.ok(p.width > 0 && p.height > 0);
          for (const item of p.items.slice(0, 50)) {
            // A turned run's item is in its run's frame (pdfTypes.ts's rot): on the page once the turn is undone.
            const r = pageRect({ x: item.x, y: item.y, w: item.w, h: item.h }, item.rot);
            assert.ok(r.x >= -1 && r.x <= p.width + 1, `item x on page ${p.page}`);
            assert.ok(r.y >= -r.h - 1 && r.y <= p.height + 1, `item y on page ${p.page}`);
            assert.ok(item.fontHeight > 0);
          }
        }
      });

      it('page text agrees with pdftotext (≥ 98 % of words over a sample of pages)', async () => {
        const book = await extracted(name);
        const sample = book.pages.filter((p) => p.page % 5 === 1 || book.pages.length < 10);
        let refWords = 0;
        let hit = 0;
        for (const p of sample) {
          const ref = pdftotext(book.file, p.page, p.page);
          const n = words(ref).length;
          refWords += n;
          hit += wordOverlap(ref, p.text) * n;
        }
        const overlap = hit / refWords;
        assert.ok(overlap >= 0.98, `word overlap ${overlap.toFixed(4)} over ${sample.length} pages`);
      });

      it('outline equals the bookmarks (titles, pages, levels, as qpdf reads them)', async () => {
        const book = await extracted(name);
        const marks = qpdfBookmarks(book.file);
        assert.deepEqual(
          book.info.outline.map((s) => ({ title: s.title, page: s.startPage, level: s.level })),
          marks,
        );
      });
    });
  }

  it('asymptote.pdf has a deep outline and 4ti2_manual.pdf a nested one; CAD.pdf none', async () => {
    const asy = await extracted('asymptote.pdf');
    assert.ok(asy.info.outline.length > 50);
    assert.ok(Math.max(...asy.info.outline.map((s) => s.level)) >= 2);
    const ti = await extracted('4ti2_manual.pdf');
    assert.ok(ti.info.outline.some((s) => s.level > 0));
    assert.equal((await extracted('CAD.pdf')).info.outline.length, 0);
  });

  it('layout blocks cover the page text and carry labels', async () => {
    const book = await extracted('4ti2_manual.pdf');
    const page = book.pages[4];
    assert.ok(page.blocks.length > 1);
    assert.deepEqual(
      page.blocks.map((b) => b.index),
      page.blocks.map((_, i) => i),
    );
    const blockText = page.blocks.map((b) => b.text).join('\n');
    assert.ok(wordOverlap(page.text, blockText) > 0.97);
    for (const b of page.blocks) assert.match(b.label, /^(heading|paragraph|list|code|caption|page_number)$/);
    assert.ok(book.pages.some((p) => p.blocks.some((b) => b.label === 'heading')));
  });
});
