import assert from 'node:assert/strict';
import { DOMMatrix as NativeDOMMatrix } from '@napi-rs/canvas';
import { BridgeError } from '../../src/server/errors';
import { ExtractionPool } from '../../src/server/ground/pdf/extractionPool';
import { NO_CANVAS_ENV } from '../../src/server/ground/pdf/nativeCanvas';
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { corpusFile } from '../unit/pdfCorpus';

const FallbackDOMMatrix = require('@thednp/dommatrix') as typeof NativeDOMMatrix;

/** CAD.pdf's seven pages: TeX Type3 fonts, whose glyphs pdf.js composes with a DOMMatrix while it reads text. */
const PAGES = [1, 2, 3, 4, 5, 6, 7];

async function readPages(pool: ExtractionPool): Promise<PageData[]> {
  const pages: PageData[] = [];
  await pool.pages({ key: 'cad', path: corpusFile('CAD.pdf') }, PAGES, (p) => pages.push(p), false);
  return pages.sort((a, b) => a.page - b.page);
}

describe('pdf.js without the native canvas (pdfjsGlobals.ts)', function () {
  this.timeout(120_000);

  it('the fallback DOMMatrix composes what pdf.js builds for a Type3 glyph as the native one does', () => {
    for (const [w, h] of [
      [10, 20],
      [7, 3],
      [1, 1],
      [250, 33],
    ]) {
      const mine = new FallbackDOMMatrix().scaleSelf(1 / w, -1 / h).translateSelf(0, -h);
      const native = new NativeDOMMatrix().scaleSelf(1 / w, -1 / h).translateSelf(0, -h);
      for (const k of ['a', 'b', 'c', 'd', 'e', 'f'] as const) assert.ok(Math.abs(mine[k] - native[k]) < 1e-12, k);
    }
  });

  it('a PDF worker where the canvas does not load reads the same text (TeX Type3 fonts), and its render is a 503, not a corrupt PDF', async () => {
    const withCanvas = new ExtractionPool({ size: 1, idleMs: 2000 });
    const expected = await readPages(withCanvas).finally(() => withCanvas.close());
    // The worker thread takes the environment it is started with; this thread keeps its canvas.
    process.env[NO_CANVAS_ENV] = '1';
    const noCanvas = new ExtractionPool({ size: 1, idleMs: 2000 });
    try {
      const pages = await readPages(noCanvas).finally(() => delete process.env[NO_CANVAS_ENV]);
      assert.deepEqual(
        pages.map((p) => p.text),
        expected.map((p) => p.text),
      );
      assert.ok(pages.reduce((n, p) => n + p.text.length, 0) > 5000, 'the pages have their text');
      assert.deepEqual(
        pages.map((p) => p.items.length),
        expected.map((p) => p.items.length),
      );
      await assert.rejects(
        noCanvas.render({ key: 'cad', path: corpusFile('CAD.pdf') }, 1, 1),
        (e: unknown) =>
          e instanceof BridgeError &&
          e.status === 503 &&
          e.code === 'RENDERER_UNAVAILABLE' &&
          e.details?.loadError === `Cannot find module '@napi-rs/canvas' (${NO_CANVAS_ENV}=1)`,
      );
    } finally {
      await noCanvas.close();
    }
  });
});
