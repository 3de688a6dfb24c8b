/**
 * worker_threads entry of the PDF pipeline (bundled as dist/pdfWorker.js).
 * Runs pdf.js, OCR and pdf-lib off the main event loop; answers the requests
 * of extractionPool.ts one at a time.
 */
import { parentPort } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { closePdf, openPdf, type PdfDocument } from './pdfjsLoader';
import { readOutline } from './outline';
import { extractPage } from './pageExtraction';
import { PageOcr } from './pageOcr';
import { renderPagePng } from './pageRender';
import { writeFlatExport } from './flatExport';
import type { PdfSource, WorkerRequest, WorkerResponse } from './workerProtocol';

const port = parentPort;
if (!port) throw new Error('extractWorker must run in a worker thread');

const MAX_CACHED = 2;
const docs = new Map<string, Promise<PdfDocument>>();
const ocr = new PageOcr();

async function sourceBytes(source: PdfSource): Promise<Uint8Array> {
  if (source.bytes) return source.bytes;
  if (source.path) return new Uint8Array(await readFile(source.path));
  throw new Error('no PDF source');
}

function getDoc(source: PdfSource): Promise<PdfDocument> {
  let doc = docs.get(source.key);
  if (doc) {
    docs.delete(source.key);
    docs.set(source.key, doc);
    return doc;
  }
  doc = sourceBytes(source).then(openPdf);
  doc.catch(() => docs.delete(source.key));
  docs.set(source.key, doc);
  while (docs.size > MAX_CACHED) {
    const [oldKey, old] = docs.entries().next().value as [string, Promise<PdfDocument>];
    docs.delete(oldKey);
    old.then(closePdf, () => undefined);
  }
  return doc;
}

const send = (msg: WorkerResponse, transfer?: ArrayBuffer[]) => port.postMessage(msg, transfer ?? []);

async function handle(req: WorkerRequest): Promise<void> {
  switch (req.kind) {
    case 'info': {
      const doc = await getDoc(req.source);
      const meta = await doc.getMetadata().catch(() => undefined);
      const title = (meta?.info as { Title?: string } | undefined)?.Title;
      send({ id: req.id, kind: 'info', info: { pageCount: doc.numPages, outline: await readOutline(doc), ...(title ? { title } : {}) } });
      return;
    }
    case 'pages': {
      const doc = await getDoc(req.source);
      for (const p of req.pages) {
        if (p < 1 || p > doc.numPages) continue;
        send({ id: req.id, kind: 'page', page: await extractPage(doc, p, req.ocr ? ocr : undefined, { blocks: req.blocks ?? true }) });
      }
      send({ id: req.id, kind: 'done' });
      return;
    }
    case 'open': {
      const doc = await getDoc(req.source);
      send({ id: req.id, kind: 'opened', pageCount: doc.numPages });
      return;
    }
    case 'render': {
      const doc = await getDoc(req.source);
      const r = await renderPagePng(doc, req.page, { scale: req.scale, region: req.region });
      const png = new Uint8Array(r.png.buffer, r.png.byteOffset, r.png.byteLength);
      send({ id: req.id, kind: 'render', png, width: r.width, height: r.height });
      return;
    }
    case 'export': {
      const r = await writeFlatExport(await sourceBytes(req.source), req.pages, req.highlights, req.outPath);
      send({ id: req.id, kind: 'export', pageCount: r.pageCount, bytes: r.bytes });
      return;
    }
    case 'forget': {
      const doc = docs.get(req.key);
      docs.delete(req.key);
      if (doc) await doc.then(closePdf, () => undefined);
      send({ id: req.id, kind: 'done' });
      return;
    }
  }
}

port.on('message', (req: WorkerRequest) => {
  handle(req).catch((err: unknown) => {
    const e = err as { message?: string; name?: string };
    send({ id: req.id, kind: 'error', message: String(e?.message ?? err), code: e?.name });
  });
});

port.on('close', () => {
  void ocr.close();
});
