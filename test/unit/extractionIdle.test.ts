import assert from 'node:assert/strict';
import { ExtractionPool } from '../../src/server/ground/pdf/extractionPool';
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { corpusFile, pdftotext, wordOverlap } from './pdfCorpus';

/** Resolves once the pool has no live worker (the test's own timeout bounds the wait). */
async function noWorkers(pool: ExtractionPool): Promise<void> {
  while (pool.workers > 0) await new Promise((r) => setTimeout(r, 20));
}

async function readBook(pool: ExtractionPool, key: string, file: string): Promise<PageData[]> {
  const pages: PageData[] = [];
  await pool.extractDocument({ key, path: file }, { onPage: (p) => pages.push(p), ocr: false, blocks: false }).done;
  return pages.sort((a, b) => a.page - b.page);
}

describe('PDF workers end once a book is read (real workers, real pdf.js)', function () {
  this.timeout(120_000);

  it('the workers that read a book end soon after; the next book starts a fresh one and reads the same text', async () => {
    const pool = new ExtractionPool({ size: 2, idleMs: 60_000, extractionIdleMs: 50 });
    try {
      const first = await readBook(pool, 'manual', corpusFile('4ti2_manual.pdf'));
      assert.equal(first.length, 59);
      await noWorkers(pool);
      const again = await readBook(pool, 'manual-again', corpusFile('4ti2_manual.pdf'));
      assert.deepEqual(
        again.map((p) => p.text),
        first.map((p) => p.text),
        'the fresh worker reads the same pages',
      );
      assert.ok(wordOverlap(pdftotext(corpusFile('4ti2_manual.pdf'), 5, 5), again[4].text) > 0.9);
      await noWorkers(pool);
      const cad = await readBook(pool, 'cad', corpusFile('CAD.pdf'));
      assert.equal(cad.length, 7);
    } finally {
      await pool.close();
    }
  });

  it('a worker that answered something else (a page count, a render) waits the full idle time for the next request', async () => {
    const pool = new ExtractionPool({ size: 1, idleMs: 60_000, extractionIdleMs: 50 });
    try {
      assert.equal((await pool.info({ key: 'cad', path: corpusFile('CAD.pdf') })).pageCount, 7);
      const png = await pool.render({ key: 'cad', path: corpusFile('CAD.pdf') }, 1, 0.5);
      assert.ok(png.width > 0);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(pool.workers, 1, 'still there after six times the extraction idle time');
      const pages: PageData[] = [];
      await pool.pages({ key: 'cad', path: corpusFile('CAD.pdf') }, [1, 2], (p) => pages.push(p), false);
      assert.equal(pages.length, 2);
      await noWorkers(pool);
    } finally {
      await pool.close();
    }
  });
});
