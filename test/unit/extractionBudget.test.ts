import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExtractionPool, PdfTaskError } from '../../src/server/ground/pdf/extractionPool';
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { tempDir } from '../helpers/bridgeFixture';
import { flateBombPdf } from '../helpers/hostileInput';
import { corpusFile } from './pdfCorpus';

const tooComplex = (e: unknown) =>
  e instanceof PdfTaskError && e.workerCode === 'PDF_TOO_COMPLEX' && /^PDF_TOO_COMPLEX: /.test(e.message);

describe('PDF workers under a budget (real workers, real pdf.js)', function () {
  this.timeout(120_000);
  const dir = tempDir('sb-budget-');

  it('a content stream inflating past the cap ends that worker with PDF_TOO_COMPLEX; the next task gets a fresh worker', async () => {
    const bomb = join(dir, 'bomb.pdf');
    writeFileSync(bomb, await flateBombPdf(64 * 1024 * 1024));
    const pool = new ExtractionPool({ size: 1, budget: { streamBytes: 8 * 1024 * 1024 } });
    try {
      const info = await pool.info({ key: 'bomb', path: bomb });
      assert.equal(info.pageCount, 1, 'opening it does not inflate the page');
      await assert.rejects(
        pool.pages({ key: 'bomb', path: bomb }, [1], () => undefined, false),
        (e) => tooComplex(e) && /inflates to more than 8 MB/.test((e as Error).message),
      );
      const pages: PageData[] = [];
      await pool.pages({ key: 'cad', path: corpusFile('CAD.pdf') }, [1], (p) => pages.push(p), false);
      assert.match(pages[0].text, /\S/);
    } finally {
      await pool.close();
    }
  });

  it('no progress within the per-page time budget: the worker is ended, PDF_TOO_COMPLEX; the next task gets a fresh worker under the same budget', async () => {
    const slow = new ExtractionPool({ size: 1, budget: { pageMs: 5 } });
    try {
      await assert.rejects(
        slow.info({ key: 'cad', path: corpusFile('CAD.pdf') }),
        (e) => tooComplex(e) && /took more than/.test((e as Error).message),
      );
      await assert.rejects(slow.info({ key: 'cad', path: corpusFile('CAD.pdf') }), tooComplex);
    } finally {
      await slow.close();
    }
  });

  it('a page count over maxPages fails before the outline is read (PDF_TOO_MANY_PAGES)', async () => {
    const pool = new ExtractionPool({ size: 1 });
    try {
      await assert.rejects(
        pool.info({ key: '4ti2', path: corpusFile('4ti2_manual.pdf') }, 10),
        (e) => e instanceof PdfTaskError && e.workerCode === 'PDF_TOO_MANY_PAGES' && /59 pages/.test(e.message),
      );
      assert.equal((await pool.info({ key: '4ti2', path: corpusFile('4ti2_manual.pdf') }, 59)).pageCount, 59);
    } finally {
      await pool.close();
    }
  });
});
