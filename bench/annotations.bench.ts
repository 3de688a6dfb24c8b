// PDF annotations over HTTP on a real bridge (issue 19 §3): import of 1,000
// highlights, and the annotated export of a 300-page book with 1,000 highlights.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { createBridge } from '../src/server/bridge';
import { BridgeClient } from '../src/client/bridgeClient';
import { corpusFile } from '../test/unit/pdfCorpus';
import { pdfJsPagesItems, withAnnotationsOnPages, type AnnotSpec } from '../test/helpers/annotatedPdf';
import { percentile, printTable } from './table';

const PAGES = 300;
const HIGHLIGHTS = 1000;
const COLORS: [number, number, number][] = [
  [1, 1, 0],
  [0, 0.8, 0],
  [0.3, 0.6, 1],
  [1, 0.4, 0.4],
];

/** A 300-page book of real pages: asymptote.pdf (196) then 4ti2_manual.pdf (59) then asymptote again. */
async function bookOf300(): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  const asy = await PDFDocument.load(readFileSync(corpusFile('asymptote.pdf')));
  const fti = await PDFDocument.load(readFileSync(corpusFile('4ti2_manual.pdf')));
  const take = async (src: PDFDocument, n: number) =>
    (
      await out.copyPages(
        src,
        Array.from({ length: n }, (_, i) => i),
      )
    ).forEach((p) => out.addPage(p));
  await take(asy, 196);
  await take(fti, 59);
  await take(asy, PAGES - 196 - 59);
  return out.save();
}

/** 1,000 highlights over real text runs (upright ones: a rotated label's box would cover other ground), some of two lines. */
async function highlightsOn(book: Uint8Array): Promise<{ bytes: Uint8Array; count: number }> {
  const pages = await pdfJsPagesItems(
    book,
    Array.from({ length: PAGES }, (_, i) => i + 1),
  );
  const byPage = new Map<number, AnnotSpec[]>();
  let count = 0;
  const perPage = Math.ceil(HIGHLIGHTS / PAGES) + 1;
  pages.forEach(({ items }, i) => {
    const lines = items.filter((it) => it.upright && it.str.length >= 12).slice(0, perPage);
    const specs: AnnotSpec[] = [];
    for (const [k, it] of lines.entries()) {
      if (count >= HIGHLIGHTS) break;
      const quads = k === 0 && lines[1] ? [it.box, lines[1].box] : [it.box];
      specs.push({
        kind: 'Highlight',
        quads,
        color: COLORS[count % COLORS.length],
        ...(count % 5 === 0 ? { contents: `note ${count}` } : {}),
      });
      count++;
    }
    if (specs.length) byPage.set(i + 1, specs);
  });
  return { bytes: await withAnnotationsOnPages(book, byPage), count };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-annots-'));
  const bridge = await createBridge({ dataDir, port: 0 });
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  const rows: (string | number)[][] = [];
  try {
    const { bytes, count } = await highlightsOn(await bookOf300());
    const up = await client.request<any>('POST', '/library/documents/upload', {
      bytes,
      query: { filename: 'book300-annotated.pdf', confirm: 1 },
    });
    await bridge.services.extraction.whenReady(up.bookmd5);
    const newSet = async (title: string) =>
      (await client.request<any>('POST', '/library/study-sets', { body: { title, confirm: true } })).topicid as string;

    const importMs: number[] = [];
    let setId = '';
    for (let i = 0; i < 3; i++) {
      setId = await newSet(`Import ${i}`);
      const t0 = performance.now();
      const r = await client.request<any>('POST', `/documents/${up.bookmd5}/annotations/import`, {
        body: { topicid: setId, confirm: true },
      });
      importMs.push(performance.now() - t0);
      if (r.created.length !== count)
        throw new Error(`created ${r.created.length} of ${count}: ${JSON.stringify(r.skipped).slice(0, 2000)}`);
    }
    importMs.sort((a, b) => a - b);
    rows.push([
      `import ${count} highlights (${PAGES}-page book), confirmed`,
      percentile(importMs, 50),
      importMs.at(-1)!,
      'goal ≤ 2 s',
    ]);
    let t0 = performance.now();
    const again = await client.request<any>('POST', `/documents/${up.bookmd5}/annotations/import`, {
      body: { topicid: setId, confirm: true },
    });
    rows.push(['import again (creates nothing)', performance.now() - t0, '', `${again.created.length} created`]);

    const exportMs: number[] = [];
    let size = 0;
    for (let i = 0; i < 3; i++) {
      t0 = performance.now();
      const res = await client.raw('GET', `/study-sets/${setId}/annotated-pdf`, { query: { bookmd5: up.bookmd5 } });
      exportMs.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(res.text());
      size = res.bytes.length;
    }
    exportMs.sort((a, b) => a - b);
    rows.push([
      `annotated export, ${PAGES} pages, ${count} highlights (${(size / 1048576).toFixed(1)} MB)`,
      percentile(exportMs, 50),
      exportMs.at(-1)!,
      'goal ≤ 3 s',
    ]);
  } finally {
    await bridge.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  printTable(['annotations', 'p50 ms', 'max ms', 'goal / note'], rows);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
