/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The PDF reader's webview: pdf.js's viewer components (continuous scroll, text
// layer, find controller; only visible pages render) plus the study set's card
// highlights. Bundled by esbuild (esbuild.mjs) into dist/webview/pdfReader.js.
import { READER_CHUNK_BYTES, type ReaderProtocol } from './protocol';
import { bookTransport } from './bookRange';
import { HighlightLayer, type PageViewLike } from './highlights';
import { readSelection } from './selection';
import { ReaderChrome } from './chrome';
import { benchScroll } from './scrollBench';
import { PageToneButton } from './pageTone';
import { takeBoot } from './bootHandoff';
import { followPointerOnCards } from './cardPointer';
import { addLoadPhases } from './loadPhases';
import { outlineOf, type PdfDocument } from './outline';
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs' with { 'resolution-mode': 'import' };
import type * as ViewerModule from 'pdfjs-dist/legacy/web/pdf_viewer.mjs' with { 'resolution-mode': 'import' };

type Events = ReaderProtocol['hostEvents'];

// boot.ts ran first: the channel, the opening picture and pdf.js's worker are its.
const { started, phases, host, opening, workerPort, viewerStyles } = takeBoot();
const mark = (step: Exclude<keyof typeof phases, 'loaded' | 'nav'>) =>
  (phases[step] ??= Math.round(performance.now() - started));
mark('main');
const assets = document.body.dataset.assets ?? '';

type PdfJsLib = typeof PdfJsModule;
type ViewerLib = typeof ViewerModule;
type PdfViewer = InstanceType<ViewerLib['PDFViewer']>;

/** pdf_viewer.mjs reads the API from globalThis.pdfjsLib when it loads: the API first. */
async function loadPdfJs(): Promise<{ lib: PdfJsLib; viewer: ViewerLib }> {
  const lib = await import('pdfjs-dist/legacy/build/pdf.mjs');
  (globalThis as { pdfjsLib?: unknown }).pdfjsLib = lib;
  const viewer = await import('pdfjs-dist/legacy/web/pdf_viewer.mjs');
  mark('libs');
  return { lib, viewer };
}
// Evaluating pdf.js holds this thread for a while (a second on a busy machine): the worker, started by
// boot.ts, gets a head start to compile its own code meanwhile (not waited on for long).
const WORKER_HEAD_START_MS = 250;
const libs = Promise.race([
  workerPort.catch(() => undefined),
  new Promise((r) => setTimeout(r, WORKER_HEAD_START_MS)),
]).then(loadPdfJs);

const highlights = new HighlightLayer();
let viewer: PdfViewer | undefined;
let pendingGoto: Events['goto'] | undefined;
let firstRenderSent = false;
/** The book's file name and the set's title (the toolbar), and the bridge's outline once the host sent them. */
let bookTitle = '';
let bookContext: Events['context'] | undefined;
let openDoc: PdfDocument | undefined;
let openLinks: { goToDestination(dest: unknown): Promise<void> } | undefined;
/** A card to show once the highlights arrive (a focus can come before them). */
let wantCard: string | undefined;
/** The selection when the context menu opened (the menu's command asks for it afterwards). */
let menuSelection: { at: number; value: ReturnType<typeof readSelection> } | undefined;

const container = document.getElementById('viewerContainer') as HTMLDivElement;
const chrome = new ReaderChrome({
  zoom: (dir) =>
    dir > 0
      ? viewer?.increaseScale()
      : dir < 0
        ? viewer?.decreaseScale()
        : viewer && (viewer.currentScaleValue = 'page-width'),
  goToPage: (page) => viewer && page >= 1 && page <= viewer.pagesCount && (viewer.currentPageNumber = page),
  makeCard: () => host.notify('makeCard'),
});

const tone = new PageToneButton(document.getElementById('pageTone') as HTMLButtonElement, (t) =>
  host.notify('tone', { tone: t }),
);

const pageView = (page: number): PageViewLike | undefined => {
  const v = viewer?.getPageView(page - 1) as PageViewLike | undefined;
  return v?.div && v.viewport ? v : undefined;
};

async function open(msg: Events['open']): Promise<void> {
  mark('open');
  const { lib, viewer: V } = await libs;
  lib.GlobalWorkerOptions.workerPort = await workerPort;
  await viewerStyles;
  const { v, eventBus, linkService } = createViewer(V);
  tone.set(msg.tone);
  followViewer(eventBus, v, msg);
  const doc = await loadDocument(lib, msg);
  mark('document');
  v.setDocument(doc);
  linkService.setDocument(doc, null);
  openDoc = doc;
  openLinks = linkService;
  bookTitle = msg.title;
  chrome.showTitle(msg.title, bookContext?.setTitle ?? null);
  chrome.showPage(msg.page, doc.numPages);
}

/** pdf.js's viewer in the page's container, with its links and find (the toolbar's search box drives it). */
function createViewer(V: ViewerLib) {
  const eventBus = new V.EventBus();
  const linkService = new V.PDFLinkService({ eventBus });
  const findController = new V.PDFFindController({ eventBus, linkService });
  const v = new V.PDFViewer({
    container,
    eventBus,
    linkService,
    findController,
    textLayerMode: 1,
    annotationMode: 1,
    imageResourcesPath: `${assets}/webview/images/`,
  });
  linkService.setViewer(v);
  viewer = v;
  chrome.bindFind(eventBus);
  return { v, eventBus, linkService };
}

/** The viewer's events: the start page and card, each drawn page's highlights, the first render, page and zoom. */
function followViewer(eventBus: InstanceType<ViewerLib['EventBus']>, v: PdfViewer, msg: Events['open']): void {
  eventBus.on('pagesinit', () => {
    v.currentScaleValue = msg.scale ?? 'page-width';
    v.currentPageNumber = Math.min(Math.max(1, pendingGoto?.page ?? msg.page), v.pagesCount);
    if (pendingGoto?.noteid) reveal(pendingGoto.noteid);
    pendingGoto = undefined;
    if (wantCard) reveal(wantCard);
  });
  eventBus.on('pagerendered', ({ pageNumber, source }: { pageNumber: number; source: PageViewLike }) => {
    highlights.draw(pageNumber, source);
    const imageJumpPx = opening.handOver(pageNumber, source.div);
    if (!firstRenderSent) {
      firstRenderSent = true;
      mark('page');
      addLoadPhases(phases, started);
      host.notify('firstRender', {
        page: pageNumber,
        ms: Math.round(performance.now() - started),
        phases,
        imageJumpPx,
        docAt: performance.timeOrigin,
        scriptMs: Math.round(started),
      });
      showOutlineSoon();
    }
  });
  let pageTimer: ReturnType<typeof setTimeout> | undefined;
  // The host (GET /context, and the place remembered for next time) hears of the page once scrolling or zooming pauses.
  const reportSoon = () => {
    clearTimeout(pageTimer);
    pageTimer = setTimeout(
      () =>
        host.notify('page', { page: v.currentPageNumber, pageCount: v.pagesCount, scale: String(v.currentScaleValue) }),
      120,
    );
  };
  eventBus.on('pagechanging', ({ pageNumber }: { pageNumber: number }) => {
    chrome.showPage(pageNumber, v.pagesCount);
    reportSoon();
  });
  eventBus.on('scalechanging', ({ scale }: { scale: number }) => {
    chrome.showScale(scale);
    reportSoon();
  });
}

/** The book read by ranges over the channel (bookRange.ts); its errors shown and reported. */
function loadDocument(lib: PdfJsLib, msg: Events['open']): Promise<PdfDocument> {
  const range = bookTransport(lib.PDFDataRangeTransport, host, msg, (err) => {
    chrome.notice(`Could not read the book: ${err instanceof Error ? err.message : String(err)}`, 'error');
    host.notify('error', { message: `readRange: ${String(err)}` });
  });
  return lib.getDocument({
    range,
    rangeChunkSize: READER_CHUNK_BYTES,
    // Only what the pages in view need, as pdf.js's viewer does for a long book read by range.
    disableAutoFetch: true,
    disableStream: true,
    cMapUrl: `${assets}/pdfjs/cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${assets}/pdfjs/standard_fonts/`,
    wasmUrl: `${assets}/pdfjs/wasm/`,
    // Fetched by this page (connect-src), not by the blob worker.
    useWorkerFetch: false,
  }).promise;
}

/**
 * The outline, once the first page is drawn (resolving the PDF's outline reads
 * more of the book) and the host sent the bridge's (the fallback).
 */
function showOutlineSoon(): void {
  if (!openDoc || !openLinks || !bookContext || !firstRenderSent) return;
  const [doc, links, fallback] = [openDoc, openLinks, bookContext.outline];
  openLinks = undefined; // once
  void outlineOf(doc, links, fallback).then((entries) => chrome.showOutline(entries));
}

/** Scrolls to a card's rectangle (a little above it) and flashes it. */
function reveal(noteid: string): void {
  const h = highlights.find(noteid);
  const view = h && pageView(h.page);
  if (!h || !viewer?.pagesCount) {
    wantCard = noteid;
    return;
  }
  wantCard = undefined;
  viewer.currentPageNumber = h.page;
  if (view) container.scrollTop = view.div.offsetTop + h.rect.y * view.viewport.scale - 80;
  setTimeout(() => highlights.flash(noteid), 50);
}

function goto(msg: Events['goto']): void {
  if (!viewer?.pagesCount) {
    pendingGoto = msg; // before the document's pages exist: applied at pagesinit
    return;
  }
  viewer.currentPageNumber = Math.min(Math.max(1, msg.page), viewer.pagesCount);
  if (msg.noteid) reveal(msg.noteid);
}

followPointerOnCards(container, highlights, pageView, (noteid) => host.notify('cardClicked', { noteid }));
container.addEventListener('contextmenu', () => {
  menuSelection = { at: Date.now(), value: readSelection(pageView) };
});

host.on(
  'open',
  (msg) =>
    void open(msg).catch((err: unknown) => {
      opening.remove();
      chrome.notice(`Could not open the book: ${err instanceof Error ? err.message : String(err)}`, 'error');
      host.notify('error', { message: String(err) });
    }),
);
host.on('context', (msg) => {
  bookContext = msg;
  if (bookTitle) chrome.showTitle(bookTitle, msg.setTitle);
  showOutlineSoon();
});
host.on('highlights', (items) => {
  highlights.set(items);
  for (let p = 1; p <= (viewer?.pagesCount ?? 0); p++) {
    const view = pageView(p);
    if (view?.div.querySelector(':scope > .canvasWrapper')) highlights.draw(p, view);
  }
  host.notify('highlightsDrawn', { count: highlights.count });
  if (wantCard) reveal(wantCard);
});
host.on('goto', (msg) => (opening.remove(), goto(msg)));
host.on('pageImage', (msg) => opening.show(msg, firstRenderSent));
host.on('notice', (msg) => chrome.notice(msg.message, msg.kind));
host.handle('getSelection', () => {
  // The live selection; else the one the context menu was opened on (a few seconds ago at most).
  const recent = menuSelection && Date.now() - menuSelection.at < 30_000 ? menuSelection.value : null;
  menuSelection = undefined;
  return readSelection(pageView) ?? recent;
});
host.handle('benchScroll', ({ from, pages }) => {
  if (!viewer) throw new Error('benchScroll: no book open');
  return benchScroll(viewer, container, from, pages);
});

window.addEventListener('error', (e) => host.notify('error', { message: `${e.message} (${e.filename}:${e.lineno})` }));
window.addEventListener('unhandledrejection', (e) =>
  host.notify('error', { message: `unhandled: ${e.reason instanceof Error ? e.reason.message : String(e.reason)}` }),
);
host.ready();
