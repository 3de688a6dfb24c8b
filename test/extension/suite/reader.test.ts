// The PDF reader in the real VS Code (issue 11): an agent uploads asymptote.pdf
// and makes excerpt cards over HTTP; the person opens the book from the Study
// Sets view, sees the cards' highlights, selects a line and makes a card of it;
// the page the reader shows is what GET /context reports; locate navigate:true
// and focus move the reader. Runs after the other suites, on the same bridge.
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { PdfReaderSession } from '../../../src/editors/pdfReaderSession';
import type { BridgeNode } from '../../../src/views/bridgeTreeProvider';
import { askRunner, outDir } from './signals';
import { eventually } from './eventually';
import { revealSettled } from '../../../src/views/treeReveal';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};
const CORPUS_PDF = resolve(outDir, '..', '..', '..', 'shared', 'corpus', 'asymptote.pdf');

type Box = { x: number; y: number; width: number; height: number };
interface ReaderState {
  pageInput: string;
  zoomLabel: string;
  tone: string;
  darkTheme: boolean;
  pageFilter: string;
  visible: number[];
  highlights: Array<{ noteid: string; page: number }>;
}

/** When the book showed: pdf.js's first page, and the opening picture before it (ms from the request and from the webview script's start). */
const openFigures = (s: PdfReaderSession) => ({
  firstRenderMs: s.firstRenderMs,
  webviewFirstRenderMs: s.webviewFirstRenderMs,
  firstImageMs: s.firstImageMs,
  webviewFirstImageMs: s.webviewFirstImageMs,
  firstImageSource: s.firstImageSource,
  imageJumpPx: s.imageJumpPx,
  imageSentMs: s.imageSentMs,
  htmlImagePage: s.htmlImagePage,
  webviewImageArrivedMs: s.webviewImageArrivedMs,
  foundMs: s.foundMs,
  resolvedMs: s.resolvedMs,
  htmlMs: s.htmlMs,
  documentMs: s.documentMs,
  scriptMs: s.scriptMs,
  openSentMs: s.openSentMs,
  readyMs: s.readyMs,
  webviewPhases: s.webviewPhases,
});

/** A line a person would quote: long, mostly words. */
const quotable = (line: string) =>
  line.length >= 40 &&
  line.length <= 160 &&
  /^[A-Z]/.test(line) &&
  (line.match(/[a-z]/g)?.length ?? 0) > line.length * 0.6 &&
  !/[{}\\$_]/.test(line);

describe('The PDF reader: highlights, Make card, the current page (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;
  let topicid: string;
  let bookmd5: string;
  let session: PdfReaderSession;
  const cards: Array<{ noteid: string; page: number }> = [];
  /** The book opened and drew: the later tests need it (and skip at once without it, not after their timeouts). */
  let opened = false;

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
  });

  /** The page of the book's cached opening picture (cache/reader-pages), if any. */
  const cachedPage = () => {
    const cached = join(api.dataDir, 'cache', 'reader-pages', `${bookmd5}.page`);
    const bytes = existsSync(cached) ? readFileSync(cached) : undefined;
    return (
      bytes && (JSON.parse(bytes.subarray(4, 4 + bytes.readUInt32LE(0)).toString('utf8')) as { page: number }).page
    );
  };

  const linesOf = async (page: number) =>
    (await agent.pages(bookmd5, page)).pages[0].text
      .split('\n')
      .map((l) => l.trim())
      .filter(quotable);

  it("opened from the Study Sets view, the book shows the set's excerpt cards over their rectangles in their colours", async function () {
    // A wait, not a figure: on this shared 2-core machine at load 15 the first page took 26.6 s (VS Code 1.139).
    this.timeout(150_000);
    const set = await agent.createStudySet('Reading Asymptote');
    topicid = set.topicid;
    bookmd5 = (await agent.uploadDocument(readFileSync(CORPUS_PDF), { filename: 'asymptote.pdf', topicid })).bookmd5;
    // An agent's excerpt cards: two on page 10, one on page 11, quoted verbatim (anchored by the text matcher).
    const [a, b] = await linesOf(10);
    const [c] = await linesOf(11);
    for (const [page, text, colorIndex] of [
      [10, a, 4],
      [10, b, 6],
      [11, c, 1],
    ] as const) {
      const card = await agent.cards.create(topicid, { excerpt: { bookmd5, page, text }, colorIndex });
      assert.ok(card.sourceAnchor.rect, `anchored: ${text}`);
      cards.push({ noteid: card.noteid, page });
    }

    await vscode.commands.executeCommand('studyBridge.refresh');
    const setNode = await eventually(
      async () => (await api.views.studySets.getChildren()).find((n) => n.id === `studySet/${topicid}`),
      'the set in the view',
    );
    const section = (await api.views.studySets.getChildren(setNode)).find((n) =>
      n.id.endsWith('/documents'),
    ) as BridgeNode;
    const docNode = (await api.views.studySets.getChildren(section)).find((n) => n.id.endsWith(`/${bookmd5}`));
    assert.ok(docNode, 'asymptote.pdf is a document of the set');
    assert.equal(
      docNode.treeItem().command?.command,
      'studyBridge.openInReader',
      'a click on the document opens the reader',
    );
    session = await vscode.commands.executeCommand<PdfReaderSession>('studyBridge.openInReader', docNode);
    assert.ok(session, 'the reader opened');
    await eventually(() => session.firstRenderMs, 'the first page drawn', 75_000).catch((e: Error) => {
      throw new Error(`${e.message}; reader errors: ${JSON.stringify(session.errors)}`);
    });
    metrics.reader = { ...openFigures(session), bytesAtFirstPage: session.bytesAtFirstRender };
    // The opening picture (when it beat pdf.js) stood exactly where pdf.js drew the page.
    if (session.imageJumpPx !== undefined)
      assert.ok(session.imageJumpPx <= 2, `pdf.js's canvas stood ${session.imageJumpPx} px from the opening picture`);
    // The webview reads the book by range: its first page took the file's ends, not the whole file.
    const bookBytes = readFileSync(CORPUS_PDF).byteLength;
    const first = session.bytesAtFirstRender ?? 0;
    assert.ok(first > 0 && first < bookBytes * 0.7, `sent ${first} of ${bookBytes} bytes before the first page`);
    opened = true;
    assert.equal(session.bookmd5, bookmd5);
    assert.equal(session.topicid, topicid);
    await eventually(() => (session.highlightCount === 3 ? true : undefined), 'three highlights');

    // An agent focuses the first card: the reader scrolls to its page, the tree selects it.
    await agent.cards.focus(cards[0].noteid, topicid);
    await eventually(() => (session.page === 10 ? true : undefined), 'the reader at page 10');
    const shown = await askRunner<ReaderState>('reader-highlights', {
      action: 'reader',
      step: 'show',
      page: 10,
      highlights: 2,
      screenshot: 'pdf-reader.png',
    });
    const onPage10 = shown.highlights.filter((h) => h.page === 10).map((h) => h.noteid);
    assert.deepEqual(onPage10.sort(), [cards[0].noteid, cards[1].noteid].sort());
    const ctx = await agent.context();
    assert.deepEqual(
      [ctx.currentPage?.bookmd5, ctx.currentPage?.page, ctx.focusedNote],
      [bookmd5, 10, cards[0].noteid],
    );
    assert.deepEqual(ctx.studySet?.topicid, topicid);
  });

  it('a line selected in the text layer becomes an excerpt card (context menu → Make Card) under the selected card, anchored to the selection', async function () {
    if (!opened) this.skip();
    // The card selected in the Study Sets view is where the new card goes.
    const parent = cards[0].noteid;
    const set = (await agent.listStudySets()).find((x) => x.topicid === topicid)!;
    await eventually(async () => api.views.studySets.cardNode(agent, set, parent), 'the card node');
    // Selected as a person would; a refresh of the view in flight (the reader's page and context reach it) can drop it: select again.
    const selected = () =>
      (api.trees.studySets.selection[0] as { noteid?: string } | undefined)?.noteid === parent ? true : undefined;
    for (let attempt = 1; attempt <= 3 && !selected(); attempt++) {
      await revealSettled(
        api.trees.studySets,
        api.views.studySets,
        () => api.views.studySets.cardNode(agent, set, parent),
        { select: true, focus: false },
      );
      await eventually(selected, 'the card selected in the tree', 5_000).catch((e: Error) =>
        attempt === 3 ? Promise.reject(e) : undefined,
      );
    }
    const sel = await askRunner<{ selected: string; spanText: string; line: Box; selection: Box | null }>(
      'reader-select',
      { action: 'reader', step: 'select', page: 10 },
    );
    assert.ok(sel.selected.trim().length > 10, `selected: ${JSON.stringify(sel.selected)}`);
    assert.ok(sel.selection);
    const before = new Set((await agent.cards.tree(topicid)).nodes.map((n) => n.noteid));
    const menu = await askRunner<{ items: string[] }>('reader-make-card', {
      action: 'reader',
      step: 'context-menu',
      item: 'Make Card',
    });
    assert.ok(menu.items.includes('Make Card'), `menu: ${menu.items}`);
    const made = await eventually(
      async () => (await agent.cards.tree(topicid)).nodes.find((n) => !before.has(n.noteid)),
      'the new card in the tree',
    );
    assert.equal(made.parent, parent, 'under the card selected in the Study Sets view');
    assert.deepEqual([made.hasExcerpt, made.page], [true, 10]);
    const [note] = (await agent.cards.batchGet([made.noteid])).notes;
    assert.equal(note.texts[0].excerpt, true);
    assert.equal(note.texts[0].text, sel.selected.replace(/\s+/g, ' ').trim());
    const a = note.sourceAnchor;
    assert.deepEqual([a.bookmd5, a.page], [bookmd5, 10]);
    // The rectangle covers the selection (page fractions × the page in points), within three points: the text
    // layer's glyph boxes (the webview's fonts, scaled to pdf.js's widths) and the bridge's text items differ by up
    // to two; when the driver had to select the line through the DOM, the selection is the span's whole box, which
    // pdf.js stretches over the item's trailing space (2.35 pt over on VS Code 1.139), while the bridge trims it.
    const size = (
      await agent.request<{ pageSize: { width: number; height: number } }>('POST', `/documents/${bookmd5}/locate`, {
        body: { page: 10, text: (await linesOf(10))[0] },
      })
    ).pageSize;
    const s = {
      x: sel.selection.x * size.width,
      y: sel.selection.y * size.height,
      width: sel.selection.width * size.width,
      height: sel.selection.height * size.height,
    };
    const r = a.rect!;
    const tol = 3;
    assert.ok(
      r.x <= s.x + tol &&
        r.y <= s.y + tol &&
        r.x + r.width >= s.x + s.width - tol &&
        r.y + r.height >= s.y + s.height - tol,
      `rect ${JSON.stringify(r)} covers the selection ${JSON.stringify(s)}`,
    );
    assert.ok(
      r.width * r.height <= s.width * s.height * 1.5 + 50,
      `rect ${JSON.stringify(r)} is the selection's, not a larger one (${JSON.stringify(s)})`,
    );
    metrics.readerMadeCard = { selection: s, rect: r };
    await eventually(() => (session.highlightCount === 4 ? true : undefined), 'the new card highlighted');
    await askRunner('reader-after-make-card', {
      action: 'reader',
      step: 'show',
      page: 10,
      highlights: 3,
      screenshot: 'pdf-reader-make-card.png',
    });
  });

  it('scrolling the reader to a page is what GET /context reports', async function () {
    if (!opened) this.skip();
    const st = await askRunner<ReaderState>('reader-scroll-42', { action: 'reader', step: 'scroll', page: 42 });
    assert.ok(st.visible.includes(42), `visible ${st.visible}`);
    const ctx = await eventually(async () => {
      const c = await agent.context();
      return c.currentPage?.page === 42 ? c : undefined;
    }, 'GET /context at page 42');
    assert.deepEqual(ctx.currentPage, { bookmd5, page: 42, mappingAvailable: true });
    assert.deepEqual(ctx.documents, [{ bookmd5, focused: true, page: 42 }]);
    // Resting on the page caches its picture while the reader is still open (a reload or a crash runs no close).
    await eventually(() => (cachedPage() === 42 ? true : undefined), 'page 42 cached while the reader is open', 30_000);
  });

  it('POST /documents/{id}/locate with navigate:true scrolls the reader to that page', async function () {
    if (!opened) this.skip();
    let page = 77;
    while (!(await linesOf(page)).length) page++;
    const [line] = await linesOf(page);
    const res = await agent.request<{ found: boolean; navigated: boolean }>('POST', `/documents/${bookmd5}/locate`, {
      body: { page, text: line, navigate: true },
    });
    assert.deepEqual([res.found, res.navigated], [true, true]);
    await eventually(() => (session.page === page ? true : undefined), `the reader at page ${page}`);
    const st = await askRunner<ReaderState>('reader-after-locate', { action: 'reader', step: 'show', page });
    assert.equal(st.pageInput, String(page));
    assert.ok(st.visible.includes(page) && !st.visible.includes(42), `visible ${st.visible}`);
    assert.equal((await agent.context()).currentPage?.page, page);
  });

  it('reopened without a page, the book opens where the person left it: page and zoom', async function () {
    if (!opened) this.skip();
    this.timeout(90_000);
    const zoomed = await askRunner<ReaderState>('reader-zoom-in', {
      action: 'reader',
      step: 'click',
      selector: '#zoomIn',
    });
    const left = session.page;
    await eventually(() => (session.scale !== 'page-width' ? true : undefined), 'the zoom reported to the host');
    const leftScale = session.scale;
    session.panel.dispose();
    await eventually(() => (api.reader.all.some((s) => s.bookmd5 === bookmd5) ? undefined : true), 'the reader closed');
    // Closing cached a picture of the page it was left at (a person reopens a book later than a test does).
    await eventually(() => (cachedPage() === left ? true : undefined), `page ${left} cached`, 30_000);
    session = await api.reader.openBook({ bookmd5, topicid });
    // The screenshot once the picture is up: the runner's frame queries while the page loads would time the harness.
    await eventually(
      () => (session.firstImageMs !== undefined || session.firstRenderMs !== undefined ? true : undefined),
      'the reopened book shown',
      30_000,
    );
    const shot = await askRunner<{ drawnBefore: number }>('reader-first-image', {
      action: 'reader',
      step: 'opening',
      screenshot: 'reader-first-image.png',
    }).catch((e: Error) => ({ error: e.message }));
    await eventually(() => (session.firstRenderMs !== undefined ? true : undefined), 'the reopened book drawn');
    await eventually(
      () => (session.imageJumpPx !== undefined ? true : undefined),
      'the picture handed over to pdf.js',
    ).catch(() => undefined);
    metrics.reader = {
      ...(metrics.reader as object),
      reopen: { page: left, ...openFigures(session), screenshot: shot },
    };
    // Which came first is a figure (printed), not asserted: in the suite's background window a paint can wait a second.
    assert.equal(session.htmlImagePage, left, 'the cached picture of that page came with the first HTML');
    assert.ok(
      (session.imageJumpPx ?? Infinity) <= 2,
      `pdf.js's canvas stood ${session.imageJumpPx} px from the opening picture`,
    );
    assert.equal(session.page, left, 'reopened at the page it was left on');
    assert.equal(session.scale, leftScale, 'and at its zoom');
    const st = await askRunner<ReaderState>('reader-remembers', {
      action: 'reader',
      step: 'show',
      page: left,
      screenshot: 'reader-remembers.png',
    });
    assert.equal(st.pageInput, String(left));
    assert.equal(st.zoomLabel, zoomed.zoomLabel, 'the toolbar shows the remembered zoom');
    assert.ok(st.visible.includes(left), `visible ${st.visible}`);
  });

  it('in a dark theme the pages are dark (Auto tone); the tone button switches to Light and back', async function () {
    if (!opened) this.skip();
    this.timeout(90_000);
    const workbench = vscode.workspace.getConfiguration('workbench');
    const before = workbench.get<string>('colorTheme');
    await workbench.update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
    try {
      const dark = await eventually(async () => {
        const st = await askRunner<ReaderState>(`reader-dark-${Date.now()}`, { action: 'reader', step: 'state' });
        return st.darkTheme && /invert/.test(st.pageFilter) ? st : undefined;
      }, 'the reader in the dark theme with inverted pages');
      assert.equal(dark.tone, 'auto');
      await askRunner('reader-dark-shot', { action: 'reader', step: 'state', screenshot: 'reader-dark.png' });
      const light = await askRunner<ReaderState>('reader-tone-light', {
        action: 'reader',
        step: 'click',
        selector: '#pageTone',
      });
      assert.equal(light.tone, 'light');
      assert.equal(light.pageFilter, 'none', 'Light shows the pages as printed, even in a dark theme');
      for (const want of ['dark', 'sepia', 'auto']) {
        const st = await askRunner<ReaderState>(`reader-tone-${want}`, {
          action: 'reader',
          step: 'click',
          selector: '#pageTone',
        });
        assert.equal(st.tone, want);
        if (want === 'sepia') assert.match(st.pageFilter, /sepia/);
      }
    } finally {
      await workbench.update('colorTheme', before, vscode.ConfigurationTarget.Global);
    }
  });

  it("figures: whether VS Code's webview resource loader answers a Range request (printed, not asserted)", async function () {
    if (!opened) this.skip();
    // Why the book goes over the channel by range and not by URL: the summary prints what the loader answered.
    metrics.readerRangeProbe = await askRunner('reader-range-probe', { action: 'reader', step: 'range-probe' }).catch(
      (e: Error) => ({ error: e.message }),
    );
    metrics.reader = {
      ...(metrics.reader as object),
      bookBytes: readFileSync(CORPUS_PDF).byteLength,
      bytesSentByNow: session.bytesSent,
    };
  });

  it('figures: the longest frame while scrolling through 50 pages (printed, not asserted)', async function () {
    if (!opened) this.skip();
    this.timeout(150_000);
    // A figure, not a check: when the webview cannot complete the measurement (seen in headless code-server,
    // where the hidden reader's frames stop), the summary says so instead of failing the suite.
    const r = await session
      .benchScroll(100, 50)
      .catch((e: Error) => ({ error: `${e.message}; reader errors: ${JSON.stringify(session.errors)}` }));
    if ('error' in r) {
      metrics.reader = { ...(metrics.reader as object), scrollError: r.error };
      this.skip();
    }
    assert.ok(r.frames > 0);
    metrics.reader = { ...(metrics.reader as object), scroll: { ...r, pages: 50 } };
  });
});
