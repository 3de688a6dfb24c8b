// The glyph pass's share of page-text extraction: per page, pdf.js's text
// content alone (what extraction did before glyph edges) and then the glyph
// pass (glyphEdges.ts: one more operator list of the page, its glyphs
// placed and matched to the items), in one thread, on the corpus files.
// The pass is split in its parts to tell what edges computed lazily, only
// for the items a quote touches, could save: the matching to items (the
// operator list and the placing are the whole page's either way).
import { readFileSync } from 'node:fs';
import { pageGlyphEdges, placeGlyphs } from '../src/server/ground/pdf/glyphEdges';
import { glyphEdges } from '../src/server/ground/pdf/glyphItems';
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
    let [textMs, withEdges, items, listMs, placeMs, matchMs] = [0, 0, 0, 0, 0, 0];
    const glyphMs = () => listMs + placeMs + matchMs;
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      let t0 = performance.now();
      const raw = (await page.getTextContent()).items as RawTextItem[];
      textMs += performance.now() - t0;
      // The pass as pageGlyphEdges runs it, in its parts: pdf.js's operator list (the whole page, whichever items a
      // quote touches; pdf.js caches it per page, so it is timed once), placing the glyphs, matching them to items.
      t0 = performance.now();
      const list = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
      listMs += performance.now() - t0;
      t0 = performance.now();
      const fontOf = (n: string) => (page.commonObjs.has(n) ? (page.commonObjs.get(n) as never) : undefined);
      const glyphs = placeGlyphs(pdfjs, list, fontOf);
      placeMs += performance.now() - t0;
      t0 = performance.now();
      const edges = glyphEdges(raw, glyphs);
      matchMs += performance.now() - t0;
      items += raw.filter((it) => it.str?.trim()).length;
      withEdges += edges.filter(Boolean).length;
      page.cleanup();
    }
    rows.push([
      name,
      doc.numPages,
      Math.round(textMs),
      Math.round(glyphMs()),
      `${((textMs + glyphMs()) / textMs).toFixed(2)}×`,
      `${((100 * withEdges) / Math.max(1, items)).toFixed(1)} %`,
      Math.round(listMs),
      Math.round(placeMs),
      Math.round(matchMs),
    ]);
    await closePdf(doc);
  }
  printTable(
    [
      'file',
      'pages',
      'text content ms',
      'glyph pass ms',
      'with glyph pass / without',
      'items with glyph edges',
      'of it: operator list ms',
      'placing ms',
      'matching to items ms',
    ],
    rows,
  );
  process.stdout.write(
    '\nOne thread, warm, every page: getTextContent alone, then the glyph pass as pageGlyphEdges runs it on the same page object,' +
      '\nin three parts: the operator list and placing its glyphs (the whole page, whichever items a quote touches)' +
      '\nand matching glyphs to items (the only part that computing edges for fewer items could save).\n',
  );
}

void main();
