import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { sharedPool } from './pdfExtracted';
import { corpusFile, pdftotext, qpdfCheck, qpdfPageCount } from './pdfCorpus';

describe('pdf pipeline: flat export and page images', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'sb-export-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exports the chosen pages with highlights drawn; qpdf --check passes; page count as requested', async () => {
    const out = path.join(dir, 'sel.pdf');
    const src = corpusFile('4ti2_manual.pdf');
    const r = await sharedPool().exportFlat(
      { key: 'x', path: src },
      [1, 5, 6, 59],
      [{ page: 5, rect: { x: 90, y: 100, w: 200, h: 20 } }],
      out,
    );
    assert.equal(r.pageCount, 4);
    assert.equal(qpdfPageCount(out), 4);
    const check = qpdfCheck(out);
    assert.ok(check.ok, check.output);
    assert.equal(pdftotext(out, 2, 2).trim().slice(0, 200), pdftotext(src, 5, 5).trim().slice(0, 200));
    assert.ok(readFileSync(out).length > 1000);
  });

  it('exports a whole book (asymptote.pdf, 196 pages)', async () => {
    const out = path.join(dir, 'all.pdf');
    const pages = Array.from({ length: 196 }, (_, i) => i + 1);
    const r = await sharedPool().exportFlat({ key: 'asy', path: corpusFile('asymptote.pdf') }, pages, [], out);
    assert.equal(r.pageCount, 196);
    assert.equal(qpdfPageCount(out), 196);
    assert.ok(qpdfCheck(out).ok);
  });

  it('renders a page and a region to PNG', async () => {
    const src = { key: 'cad', path: corpusFile('CAD.pdf') };
    const page = await sharedPool().render(src, 1, 0.5);
    assert.deepEqual([...page.png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
    assert.ok(page.width > 100 && page.height > 100);
    const region = await sharedPool().render(src, 1, 2, { x: 50, y: 50, w: 100, h: 40 });
    assert.equal(region.width, 200);
    assert.equal(region.height, 80);
  });
});
