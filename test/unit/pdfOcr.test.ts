import assert from 'node:assert/strict';
import { extracted } from './pdfExtracted';
import { corpusFile, pdftotext, wordOverlap } from './pdfCorpus';

describe('pdf pipeline: OCR of image-only pages', function () {
  this.timeout(180_000);

  it('scanned-4ti2-p5-8.pdf is read by OCR and shares ≥ 90 % of words with pages 5–8 of 4ti2_manual.pdf', async () => {
    const scan = await extracted('scanned-4ti2-p5-8.pdf');
    assert.equal(scan.info.pageCount, 4);
    for (const p of scan.pages) {
      assert.equal(p.ocr, true, `page ${p.page} went through OCR`);
      assert.ok(p.items.length > 20);
      assert.equal(pdftotext(scan.file, p.page, p.page).trim(), '', 'the scan has no text layer');
    }
    // Words = tokens with a letter (matrix entries and maths symbols are not words;
    // OCR reads "1 1 1 1" in a typewriter font as "1111").
    const original = corpusFile('4ti2_manual.pdf');
    const overlap = wordOverlap(pdftotext(original, 5, 8), scan.pages.map((p) => p.text).join('\n'), {
      lettersOnly: true,
    });
    assert.ok(overlap >= 0.9, `overlap ${overlap.toFixed(3)}`);
    for (let i = 0; i < 4; i++) {
      const page = wordOverlap(pdftotext(original, 5 + i, 5 + i), scan.pages[i].text, { lettersOnly: true });
      assert.ok(page >= 0.8, `page ${i + 1}: overlap ${page.toFixed(3)}`);
    }
  });

  it('OCR items are positioned in page points inside the page', async () => {
    const scan = await extracted('scanned-4ti2-p5-8.pdf');
    for (const p of scan.pages) {
      for (const it of p.items) {
        assert.ok(it.x >= 0 && it.x + it.w <= p.width + 1 && it.y >= 0 && it.y + it.h <= p.height + 1);
      }
    }
  });
});
