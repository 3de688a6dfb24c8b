/**
 * worker_threads entry of the PDF pipeline (bundled as dist/pdfWorker.js).
 * Runs pdf.js, OCR and pdf-lib off the main event loop; answers the requests
 * of extractionPool.ts one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { closePdf, openPdf, type PdfDocument } from './pdfjsLoader';
import { readOutline } from './outline';
import { extractPage } from './pageExtraction';
import { PageOcr } from './pageOcr';
import { renderPageImage } from './pageRender';
import { writeFlatExport } from './flatExport';
import { MAX_ANNOTATIONS_PER_PAGE, MAX_CONTENTS_CHARS, readPageAnnotations } from './pdfAnnotations';
import { scanAnnotations } from './annotationScan';
import { crossReferenceRefusal } from './crossReference';
import { objectStreamRefusal } from './objectStreamStrings';
import { buildAnnotatedPdf } from './highlightWrite';
import type { PdfSource, WorkerRequest, WorkerResponse } from './workerProtocol';
import {
  checkWorkerMemory,
  defaultBudget,
  setWorkerBudget,
  TOO_COMPLEX,
  TOO_COMPLEX_EXIT,
  workerBudget,
  budgetExceeded,
  type ExtractionBudget,
} from './extractionBudget';

const port = parentPort;
if (!port) throw new Error('extractWorker must run in a worker thread');

// Work nobody waits on takes only idle CPU. Linux gives each thread its own nice value (its id under /proc/thread-self).
if ((workerData as { lowPriority?: boolean } | undefined)?.lowPriority) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) setPriority(tid, 19);
  } catch {
    /* elsewhere the thread keeps the process's priority */
  }
}

const MAX_CACHED = 2;
const docs = new Map<string, Promise<PdfDocument>>();
/** Bytes of the PDFs open in this worker (not counted against its memory budget). */
const openBytes = new Map<string, number>();
const ocr = new PageOcr();
/** The request being answered: the one a budget overrun fails. */
let current: number | undefined;

setWorkerBudget((workerData as { budget?: ExtractionBudget } | undefined)?.budget ?? defaultBudget, (reason) => {
  if (current !== undefined) send({ id: current, kind: 'error', message: reason, code: TOO_COMPLEX });
  // Ends this thread at once: whatever pdf.js holds goes with it, and the pool starts a fresh worker.
  process.exit(TOO_COMPLEX_EXIT);
});
/** Set by WorkerSlot.terminate on Node 20: end at the next page or turn, never while zlib makes a handle. */
const quitFlag = new Int32Array(
  (workerData as { quit?: SharedArrayBuffer } | undefined)?.quit ?? new SharedArrayBuffer(4),
);
const quitIfAsked = () => Atomics.load(quitFlag, 0) === 1 && process.exit(0);
// Runs whenever pdf.js yields (it does between operator chunks), so a page that keeps growing is stopped.
setInterval(() => {
  quitIfAsked();
  if (current !== undefined) checkWorkerMemory(sumOpenBytes());
}, 250).unref();

const sumOpenBytes = () => [...openBytes.values()].reduce((a, b) => a + b, 0);

async function sourceBytes(source: PdfSource): Promise<{ bytes: Uint8Array; owned: boolean }> {
  if (source.bytes) return { bytes: source.bytes, owned: false };
  if (source.path) {
    // A view, not `new Uint8Array(buffer)`, which would copy the whole file.
    const b = await readFile(source.path);
    return { bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength), owned: true };
  }
  throw new Error('no PDF source');
}

function getDoc(source: PdfSource): Promise<PdfDocument> {
  let doc = docs.get(source.key);
  if (doc) {
    docs.delete(source.key);
    docs.set(source.key, doc);
    return doc;
  }
  doc = sourceBytes(source).then((s) => {
    openBytes.set(source.key, s.bytes.byteLength);
    const refused = crossReferenceRefusal(s.bytes) ?? objectStreamRefusal(s.bytes, workerBudget().streamBytes);
    // Answered as a budget overrun is: this worker ends (the pool starts a fresh one) and the read is 422 PDF_TOO_COMPLEX.
    if (refused) budgetExceeded(refused);
    return openPdf(s.bytes, s.owned);
  });
  doc.catch(() => {
    docs.delete(source.key);
    openBytes.delete(source.key);
  });
  docs.set(source.key, doc);
  while (docs.size > MAX_CACHED) {
    const [oldKey, old] = docs.entries().next().value as [string, Promise<PdfDocument>];
    docs.delete(oldKey);
    openBytes.delete(oldKey);
    old.then(closePdf, () => undefined);
  }
  return doc;
}

const send = (msg: WorkerResponse, transfer?: ArrayBuffer[]) => port.postMessage(msg, transfer ?? []);

/**
 * A page's annotations at a time: what a page costs is given back before the
 * next, and a page over budget ends only itself. Pages the scan refuses
 * (too many annotations, a note of megabytes) are not given to pdf.js.
 */
async function readAnnotationTask(req: Extract<WorkerRequest, { kind: 'annotations' }>): Promise<void> {
  const doc = await getDoc(req.source);
  const { bytes } = await sourceBytes(req.source);
  const scan = await scanAnnotations(bytes, MAX_ANNOTATIONS_PER_PAGE, MAX_CONTENTS_CHARS);
  for (const p of req.pages) {
    if (p < 1 || p > doc.numPages) continue;
    const refused = scan?.refused.get(p);
    const read = refused
      ? { page: p, annotations: [], skipped: [{ kind: 'Annotations', page: p, reason: refused }] }
      : await readPageAnnotations(doc, p, scan?.unprinted);
    send({ id: req.id, kind: 'annotationPage', ...read });
    quitIfAsked();
    checkWorkerMemory(sumOpenBytes());
  }
  send({ id: req.id, kind: 'done' });
}

async function handle(req: WorkerRequest): Promise<void> {
  switch (req.kind) {
    case 'info': {
      const doc = await getDoc(req.source);
      // Before the outline is read: a page count over the limit is refused cheaply.
      if (req.maxPages !== undefined && doc.numPages > req.maxPages) {
        throw Object.assign(new Error(`The PDF has ${doc.numPages} pages; the limit is ${req.maxPages}.`), {
          name: 'PDF_TOO_MANY_PAGES',
        });
      }
      const meta = await doc.getMetadata().catch(() => undefined);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc types info as Object; the linter resolves it otherwise
      const title = (meta?.info as { Title?: string } | undefined)?.Title;
      send({
        id: req.id,
        kind: 'info',
        info: { pageCount: doc.numPages, outline: await readOutline(doc), ...(title ? { title } : {}) },
      });
      return;
    }
    case 'pages': {
      const doc = await getDoc(req.source);
      for (const p of req.pages) {
        if (p < 1 || p > doc.numPages) continue;
        send({
          id: req.id,
          kind: 'page',
          page: await extractPage(doc, p, req.ocr ? ocr : undefined, { blocks: req.blocks ?? true }),
        });
        quitIfAsked();
        checkWorkerMemory(sumOpenBytes());
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
      const r = await renderPageImage(doc, req.page, { scale: req.scale, region: req.region, format: req.format });
      const bytes = new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
      send({ id: req.id, kind: 'render', bytes, width: r.width, height: r.height });
      return;
    }
    case 'export': {
      const { bytes } = await sourceBytes(req.source);
      // The source and the export built from it are the document's own size, not over budget.
      openBytes.set('#export', 2 * bytes.byteLength);
      const r = await writeFlatExport(bytes, req.pages, req.highlights, req.outPath).finally(() =>
        openBytes.delete('#export'),
      );
      send({ id: req.id, kind: 'export', pageCount: r.pageCount, bytes: r.bytes });
      return;
    }
    case 'annotations':
      return readAnnotationTask(req);
    case 'annotate': {
      const { bytes } = await sourceBytes(req.source);
      openBytes.set('#export', 2 * bytes.byteLength);
      const pdf = await buildAnnotatedPdf(bytes, req.highlights).finally(() => openBytes.delete('#export'));
      send({ id: req.id, kind: 'annotated', pdf }, [pdf.buffer as ArrayBuffer]);
      return;
    }
    case 'forget': {
      const doc = docs.get(req.key);
      docs.delete(req.key);
      openBytes.delete(req.key);
      if (doc) await doc.then(closePdf, () => undefined);
      send({ id: req.id, kind: 'done' });
      return;
    }
  }
}

port.on('message', (req: WorkerRequest) => {
  if (req.kind === 'quit') process.exit(0); // between two turns: no zlib handle is half made here
  current = req.id;
  handle(req)
    .catch((err: unknown) => {
      const e = err as { message?: string; name?: string; code?: unknown };
      // errno travels too: an ENOSPC while writing an export must reach the caller as a full disk.
      send({
        id: req.id,
        kind: 'error',
        message: String(e?.message ?? err),
        code: e?.name,
        ...(typeof e?.code === 'string' ? { errno: e.code } : {}),
      });
    })
    .finally(() => {
      if (current === req.id) current = undefined;
    });
});

port.on('close', () => {
  void ocr.close();
});
