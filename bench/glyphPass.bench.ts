// The glyph pass's share of page-text extraction: per page, pdf.js's text
// content alone (what extraction did before glyph edges) and then the glyph
// pass (glyphEdges.ts: one more operator list of the page, its glyphs
// placed and matched to the items), in one thread, on the corpus files.
import { readFileSync } from 'node:fs';
import { pageGlyphEdges } from '../src/server/ground/pdf/glyphEdges';
import { closePdf, loadPdfJs, openPdf } from '../src/server/ground/pdf/pdfjsLoader';
import type { RawTextItem } from '../src/server/ground/pdf/pageText';
import { corpusFile } from '../test/unit/pdfCorpus';
import { printTable } from './table';

async function main() {
  const pdfjs = await loadPdfJs();
  const rows: (string | number)[][] = [];
  for (const name of ['4ti2_manual.pdf', 'asymptote.pdf', 'CAD.pdf']) {
    const doc = await openPdf(new Uint8Array(readFileSync(corpusFile(name))));
    // Warm-up: fonts and JIT (a warm worker's steady state).
    for (let p = 1; p <= Math.min(3, doc.numPages); p++) {
      const page = await doc.getPage(p);
      await pageGlyphEdges(pdfjs, page, (await page.getTextContent()).items as RawTextItem[]);
      page.cleanup();
    }
    let [textMs, glyphMs, withEdges, items] = [0, 0, 0, 0];
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      let t0 = performance.now();
      const raw = (await page.getTextContent()).items as RawTextItem[];
      textMs += performance.now() - t0;
      t0 = performance.now();
      const edges = await pageGlyphEdges(pdfjs, page, raw);
      glyphMs += performance.now() - t0;
      items += raw.filter((it) => it.str?.trim()).length;
      withEdges += edges.filter(Boolean).length;
      page.cleanup();
    }
    rows.push([
      name,
      doc.numPages,
      Math.round(textMs),
      Math.round(glyphMs),
      `${((textMs + glyphMs) / textMs).toFixed(2)}×`,
      `${((100 * withEdges) / Math.max(1, items)).toFixed(1)} %`,
    ]);
    await closePdf(doc);
  }
  printTable(
    ['file', 'pages', 'text content ms', 'glyph pass ms', 'with glyph pass / without', 'items with glyph edges'],
    rows,
  );
  process.stdout.write(
    '\nOne thread, warm, every page: getTextContent alone, then pageGlyphEdges (operator list + placing + matching) on the same page object.\n',
  );
}

void main();
