// Page-text throughput of our pipeline (pdf.js in ≤ 2 worker threads, with
// positions, font heights and the OCR check) next to poppler's pdftotext on
// the same corpus files, in the same run.
import { execFileSync } from 'node:child_process';
import { ExtractionPool } from '../src/server/ground/pdf/extractionPool';
import { corpusFile } from '../test/unit/pdfCorpus';
import { printTable } from './table';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const pool = new ExtractionPool({ size: 2 });
  // Warm-up: both workers load pdf.js and run its text path once (a running bridge's workers are warm
  // after their first book; this measures that steady state, not JIT start-up).
  await Promise.all([1, 2].map((i) => pool.info({ key: `warm${i}`, path: corpusFile('CAD.pdf') })));
  await pool.extractDocument({ key: 'warm-text', path: corpusFile('CAD.pdf') }, { onPage: () => undefined }).done;
  const rows: (string | number)[][] = [];
  let run = 0;
  for (const name of ['4ti2_manual.pdf', 'asymptote.pdf', 'CAD.pdf', 'scanned-4ti2-p5-8.pdf']) {
    const file = corpusFile(name);
    const reps = name.startsWith('scanned') ? 1 : 5;
    const popplerMs: number[] = [];
    const oursMs: number[] = [];
    let pages = 0;
    let ocrPages = 0;
    for (let r = 0; r < reps; r++) {
      let t0 = performance.now();
      execFileSync('pdftotext', [file, '-'], { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
      popplerMs.push(performance.now() - t0);
      t0 = performance.now();
      pages = 0;
      ocrPages = 0;
      const h = pool.extractDocument(
        { key: `${name}#${run++}`, path: file },
        {
          blocks: false,
          onPage: (p) => {
            pages++;
            if (p.ocr) ocrPages++;
          },
        },
      );
      await h.done;
      oursMs.push(performance.now() - t0);
    }
    const ours = (pages / median(oursMs)) * 1000;
    const poppler = (pages / median(popplerMs)) * 1000;
    rows.push([
      name,
      pages,
      ocrPages,
      median(oursMs),
      ours,
      median(popplerMs),
      poppler,
      `${(ours / poppler).toFixed(2)}×`,
    ]);
  }
  await pool.close();
  printTable(
    [
      'file',
      'pages',
      'OCR pages',
      'ours ms',
      'ours pages/s',
      'pdftotext ms',
      'pdftotext pages/s',
      'ours / pdftotext (goal ≥ 0.5×)',
    ],
    rows,
  );
  process.stdout.write(
    '\nOurs = whole-document extraction through the worker pool (2 threads, warm), with item positions and font heights, as upload runs it (layout blocks are derived later, on demand); pdftotext = plain text only, one process per file. The scanned file is OCR (tesseract.js), not comparable.\n',
  );
}

void main();
