// Drives the PDF reader's webview like a person (playwright in the webview's
// iframe): select a line of the text layer, open the webview's context menu and
// pick Make Card, scroll the book, read what is shown, take screenshots.
// Served by run.ts for the suite's `askRunner(name, { action: 'reader', … })`.
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { sleep, until, webviewFrame } from './workbenchFrames';

export type ReaderAction =
  /** Wait until the reader shows page `page` with at least `highlights` card highlights drawn on it; optional screenshot. */
  | { action: 'reader'; step: 'show'; page: number; highlights?: number; screenshot?: string }
  /**
   * Drag-select the longest line of the text layer visible on `page`; returns its text and box in page fractions.
   * `toNextLine`: from a run that starts a line to the end of the run starting the line below at the same left
   * (the same column), the longest such pair: a selection over a line break.
   */
  | { action: 'reader'; step: 'select'; page: number; toNextLine?: boolean }
  /** Right-click the selection and choose `item` in the webview's context menu. */
  | { action: 'reader'; step: 'context-menu'; item: string }
  /** Press a key chord in the reader (e.g. Control+Alt+M). */
  | { action: 'reader'; step: 'key'; key: string }
  /** Scroll the viewer (a real scroll of its container) so that `page` is at the top. */
  | { action: 'reader'; step: 'scroll'; page: number }
  /** Click a control of the reader's toolbar (a CSS selector), like a person. */
  | { action: 'reader'; step: 'click'; selector: string }
  /** What the reader shows: the page box, the pages in view, the highlights drawn, zoom and page tone. */
  | { action: 'reader'; step: 'state'; screenshot?: string }
  /** As soon as the opening picture shows (before pdf.js drew its page), a screenshot: whether pdf.js had drawn a page by then. */
  | { action: 'reader'; step: 'opening'; screenshot: string }
  /**
   * From inside the webview, ask VS Code's webview resource loader for the first KB of one of our assets (the
   * pdf.js worker script) with a Range header, and for all of it: whether a book could be read by URL in ranges.
   */
  | { action: 'reader'; step: 'range-probe' }
  /**
   * Bring this workbench window to the front (the suite's second window, a tab of the same browser, sends it to
   * the background: run.ts). Not called by the suites: in the first full run with it, every Make Card from the
   * webview's context menu was lost on VS Code 1.100 and later clicks into the reader stalled; cause not found.
   */
  | { action: 'reader'; step: 'front' };

/** What the webview resource loader answered to `Range: bytes=0-1023` and to a plain GET of the same asset. */
export interface RangeProbe {
  status: number;
  contentRange: string | null;
  acceptRanges: string | null;
  rangeBytes: number;
  rangeMs: number;
  fullStatus: number;
  fullBytes: number;
  fullAcceptRanges: string | null;
  fullContentLength: string | null;
}

/** A drag this slow that selected nothing went to a window whose input crawls: later selects use the DOM. */
const SLOW_DRAG_MS = 3_000;
let dragsLost = false;

/** The line 'select' dragged over, in the workbench page's coordinates. */
let lastSelected: { x: number; y: number; width: number; height: number } | undefined;

async function state(frame: FrameLocator) {
  return frame.locator('#viewerContainer').evaluate((c) => {
    const box = c.getBoundingClientRect();
    const visible = [...c.querySelectorAll<HTMLElement>('.page')]
      .filter((p) => {
        const r = p.getBoundingClientRect();
        return r.bottom > box.top + 4 && r.top < box.bottom - 4;
      })
      .map((p) => Number(p.dataset.pageNumber));
    const highlights = [...c.querySelectorAll<HTMLElement>('.sb-highlight')].map((h) => ({
      noteid: h.dataset.noteid ?? '',
      page: Number(h.closest<HTMLElement>('.page')?.dataset.pageNumber),
    }));
    const canvas = c.querySelector<HTMLElement>('.page .canvasWrapper');
    return {
      pageInput: (document.getElementById('pageInput') as HTMLInputElement).value,
      zoomLabel: document.getElementById('zoomLabel')?.textContent ?? '',
      tone: document.body.dataset.tone ?? '',
      darkTheme: document.body.classList.contains('vscode-dark'),
      pageFilter: canvas ? getComputedStyle(canvas).filter : '',
      visible,
      highlights,
      rendered: [...c.querySelectorAll<HTMLElement>('.page canvas')].map((cv) =>
        Number(cv.closest<HTMLElement>('.page')?.dataset.pageNumber),
      ),
    };
  });
}

export async function serveReader(page: Page, a: ReaderAction, out: string): Promise<unknown> {
  if (a.step === 'front') {
    await page.bringToFront();
    return { front: true };
  }
  if (a.step === 'opening') {
    const f = await webviewFrame(page, '#openingPage', 15_000, undefined);
    await f.locator('#openingPage').evaluate((img) => (img as HTMLImageElement).decode());
    const drawnBefore = await f.locator('.page canvas').count();
    await page.screenshot({ path: join(out, a.screenshot) });
    return { drawnBefore, stillShown: await f.locator('#openingPage').count() };
  }
  // The reader in sight: other readers may be open in background tabs (their webviews are hidden).
  const frame = await webviewFrame(page, '#viewerContainer .page', 30_000, undefined);
  switch (a.step) {
    case 'state': {
      const st = await state(frame);
      if (a.screenshot) await page.screenshot({ path: join(out, a.screenshot) });
      return st;
    }
    case 'click':
      await frame.locator(a.selector).click();
      await sleep(300);
      return state(frame);
    case 'show': {
      const s = await until(
        async () => {
          const st = await state(frame);
          const drawn = st.highlights.filter((h) => h.page === a.page).length;
          return st.visible.includes(a.page) && st.rendered.includes(a.page) && drawn >= (a.highlights ?? 0)
            ? st
            : undefined;
        },
        30_000,
        `page ${a.page} with ${a.highlights ?? 0} highlights`,
      );
      if (a.screenshot) {
        await sleep(600); // the flash of a focused card settles
        await page.screenshot({ path: join(out, a.screenshot) });
      }
      return s;
    }
    case 'select': {
      const spans = frame.locator(`.page[data-page-number="${a.page}"] .textLayer span`);
      await spans.first().waitFor({ state: 'attached', timeout: 20_000 });
      // The longest run fully in view (a whole line of text, as a person would select it).
      const found = await frame.locator('#viewerContainer').evaluate(
        (c, [pageNo, toNextLine]) => {
          const box = c.getBoundingClientRect();
          let best: { i: number; end: number; len: number } | undefined;
          const all = [...c.querySelectorAll<HTMLElement>(`.page[data-page-number="${pageNo}"] .textLayer span`)];
          // Indices are the locator's (every span); runs holding other spans are not lines.
          const leaf = all.map((s) => !s.querySelector('span'));
          const rects = all.map((s) => s.getBoundingClientRect());
          // In view: no named helpers in here (the page evaluates this source as is, without bundler helpers such as __name).
          const inView = rects.map((r) => r.top > box.top + 10 && r.bottom < box.bottom - 10);
          all.forEach((s, i) => {
            const r = rects[i];
            const len = (s.textContent ?? '').trim().length;
            if (!leaf[i]) return;
            if (!toNextLine) {
              if (inView[i] && r.width > 20 && len > (best?.len ?? 0)) best = { i, end: i, len };
              return;
            }
            // The line below: the first later run starting at this run's left, below it by less than two line heights.
            const j = rects.findIndex(
              (q, k) =>
                k > i &&
                leaf[k] &&
                Math.abs(q.left - r.left) < 2 &&
                q.top >= r.bottom - 1 &&
                q.top < r.bottom + r.height,
            );
            if (j < 0 || !inView[i] || !inView[j] || r.width < 20) return;
            const both = len + (all[j].textContent ?? '').trim().length;
            if (both > (best?.len ?? 0)) best = { i, end: j, len: both };
          });
          return best && { i: best.i, end: best.end };
        },
        [a.page, !!a.toNextLine] as const,
      );
      if (found === undefined) throw new Error(`no line of page ${a.page} in view`);
      const target = found.i;
      const span = spans.nth(target);
      const last = spans.nth(found.end);
      // A drag that lands while the page is still settling (a render, a scroll) selects nothing: a person drags again.
      // Sometimes the drag never reaches the nested frame: on VS Code 1.139, and in the suite's first window once its
      // second window is open, a background tab then (each drag took 6–8.5 s and selected nothing, three times in a row: 26 s of a test's 60). The last resort selects the same line through the DOM, which the page hears as the same
      // selectionchange; after a slow empty drag, later selects go to it at once.
      for (let attempt = 1; ; attempt++) {
        const b = (await span.boundingBox())!;
        const e = found.end === target ? b : (await last.boundingBox())!;
        lastSelected = b;
        if (attempt > 2 || dragsLost) {
          await span.evaluate(
            (s, end) => {
              const r = document.createRange();
              r.setStart(s, 0);
              r.setEnd(end, end.childNodes.length);
              document.getSelection()?.removeAllRanges();
              document.getSelection()?.addRange(r);
            },
            await last.elementHandle(),
          );
          break;
        }
        const t0 = Date.now();
        await page.mouse.move(b.x + 1, b.y + b.height / 2);
        await page.mouse.down();
        await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 2 });
        await page.mouse.move(e.x + e.width - 1, e.y + e.height / 2, { steps: 2 });
        await page.mouse.up();
        // A drag must take the line from its first character: on VS Code 1.139 one began a character late
        // ("ccept an optional…"), which no word box of poppler's matches; that counts as a drag that missed.
        const [selected, lineText] = await span.evaluate((s) => [
          document.getSelection()?.toString() ?? '',
          s.textContent ?? '',
        ]);
        if (selected.trim() && selected.trim().startsWith(lineText.trim().slice(0, 8))) break;
        if (Date.now() - t0 > SLOW_DRAG_MS) dragsLost = true;
        await sleep(700);
      }
      // The selected text and the line's box in fractions of the page (the test converts with the page size in points).
      return span.evaluate((s) => {
        const pageDiv = s.closest('.page')!;
        const p = (pageDiv.querySelector(':scope > .canvasWrapper') ?? pageDiv).getBoundingClientRect();
        const sel = document.getSelection();
        // No named helpers in here: the page evaluates this source as is (no bundler helpers such as __name).
        const [line, selection] = [
          s.getBoundingClientRect(),
          sel && sel.rangeCount ? sel.getRangeAt(0).getBoundingClientRect() : null,
        ].map((r) =>
          r
            ? {
                x: (r.left - p.left) / p.width,
                y: (r.top - p.top) / p.height,
                width: r.width / p.width,
                height: r.height / p.height,
              }
            : null,
        );
        return {
          selected: sel?.toString() ?? '',
          spanText: s.textContent ?? '',
          line,
          selection,
        };
      });
    }
    case 'context-menu': {
      // On the selected line (where 'select' dragged), in the workbench's coordinates.
      if (!lastSelected) throw new Error('select a line first');
      await page.mouse.click(lastSelected.x + lastSelected.width / 2, lastSelected.y + lastSelected.height / 2, {
        button: 'right',
      });
      const item = page.locator('.monaco-menu .action-item .action-label', { hasText: a.item }).first();
      await item.waitFor({ state: 'visible', timeout: 10_000 });
      const items = await page.locator('.monaco-menu .action-item .action-label').allInnerTexts();
      await item.click();
      // As in workbenchActions.ts: a click landing while the menu settles is lost and the menu stays open (then
      // the command never runs, and the open menu keeps later clicks from the webview). Enter runs the item.
      const menu = page.locator('.monaco-menu').first();
      let enter = false;
      if (
        !(await menu.waitFor({ state: 'hidden', timeout: 2_000 }).then(
          () => true,
          () => false,
        ))
      ) {
        await item.hover({ timeout: 2_000 }).catch(() => undefined);
        if (await menu.isVisible().catch(() => false)) {
          await page.keyboard.press('Enter');
          enter = true;
        }
      }
      return { clicked: a.item, items, enter };
    }
    case 'key':
      await page.keyboard.press(a.key);
      return { pressed: a.key };
    case 'range-probe':
      return frame.locator('body').evaluate(async (body) => {
        const url = body.dataset.worker ?? '';
        const t0 = performance.now();
        const r = await fetch(url, { headers: { Range: 'bytes=0-1023' }, cache: 'no-store' });
        const rangeBytes = (await r.arrayBuffer()).byteLength;
        const rangeMs = Math.round(performance.now() - t0);
        const f = await fetch(url, { cache: 'no-store' });
        return {
          status: r.status,
          contentRange: r.headers.get('content-range'),
          acceptRanges: r.headers.get('accept-ranges'),
          rangeBytes,
          rangeMs,
          fullStatus: f.status,
          fullBytes: (await f.arrayBuffer()).byteLength,
          fullAcceptRanges: f.headers.get('accept-ranges'),
          fullContentLength: f.headers.get('content-length'),
        };
      });
    case 'scroll': {
      await frame.locator('#viewerContainer').evaluate((c, pageNo) => {
        const p = c.querySelector<HTMLElement>(`.page[data-page-number="${pageNo}"]`)!;
        c.scrollTop = p.offsetTop + 2;
      }, a.page);
      await sleep(400);
      return state(frame);
    }
  }
}

/** When the reader's steps ended, in ms from the request: the first HTML written, the webview's document and script started. */
type Steps = {
  foundMs?: number;
  resolvedMs?: number;
  htmlMs?: number;
  documentMs?: number;
  scriptMs?: number;
  openSentMs?: number;
  readyMs?: number;
  webviewPhases?: Record<string, unknown>;
};

/** Lines for the suite summary (figures, not assertions). */
export function readerSummary(metrics: Record<string, unknown>): string {
  const r = metrics.reader as
    | {
        firstRenderMs?: number;
        webviewFirstRenderMs?: number;
        webviewPhases?: Record<string, unknown>;
        firstImageMs?: number;
        webviewFirstImageMs?: number;
        firstImageSource?: string;
        imageJumpPx?: number;
        imageSentMs?: number;
        htmlImagePage?: number;
        webviewImageArrivedMs?: number;
        htmlMs?: number;
        documentMs?: number;
        scriptMs?: number;
        reopen?: {
          page: number;
          firstRenderMs?: number;
          webviewFirstRenderMs?: number;
          firstImageMs?: number;
          webviewFirstImageMs?: number;
          firstImageSource?: string;
          imageJumpPx?: number;
          imageSentMs?: number;
          htmlImagePage?: number;
        } & Steps;
        bytesAtFirstPage?: number;
        bytesSentByNow?: number;
        bookBytes?: number;
        scrollError?: string;
        scroll?: {
          longestFrameMs: number;
          frames: number;
          ms: number;
          pagesRendered: number;
          pages: number;
          clockFrames?: number;
          slowFrames?: number;
          ranges?: object;
          page?: object;
        };
      }
    | undefined;
  if (!r) return '  reader:     (not measured)\n';
  const s = r.scroll;
  const probed = metrics.readerRangeProbe as (RangeProbe & { error?: undefined }) | { error: string } | undefined;
  const probe = probed && !probed.error ? (probed as RangeProbe) : undefined;
  const image = (x: {
    firstImageMs?: number;
    webviewFirstImageMs?: number;
    firstImageSource?: string;
    imageJumpPx?: number;
    imageSentMs?: number;
    htmlImagePage?: number;
    webviewImageArrivedMs?: number;
  }) =>
    x.firstImageMs === undefined
      ? `not shown (pdf.js drew first${x.imageSentMs === undefined ? '' : `; rendered and sent ${x.imageSentMs} ms after opening`}${x.htmlImagePage === undefined ? '' : `; page ${x.htmlImagePage} was in the first HTML`})`
      : `${x.firstImageMs} ms after opening, webview script start → image ${x.webviewFirstImageMs} ms (${x.firstImageSource === 'html' ? 'cached, in the first HTML' : `rendered, sent ${x.imageSentMs ?? '?'} ms after opening, in the webview ${x.webviewImageArrivedMs ?? '?'} ms after its script start`}; canvas vs image ${x.imageJumpPx ?? '?'} px)`;
  const o = r.reopen;
  const phasesOf = (x: Steps) =>
    x.webviewPhases
      ? Object.entries(x.webviewPhases)
          .map(([k, v]) => `${k} ${typeof v === 'string' || typeof v === 'number' ? v : JSON.stringify(v)}`)
          .join(', ')
      : '';
  const steps = (x: Steps) =>
    `  reader:       (open → file found ${x.foundMs ?? '?'} ms → editor made ${x.resolvedMs ?? '?'} ms → HTML written ${x.htmlMs ?? '?'} ms → webview document start ${x.documentMs ?? '?'} ms → script start ${x.scriptMs ?? '?'} ms; the host had the book's ends at ${x.openSentMs ?? '?'} ms, the page's ready at ${x.readyMs ?? '?'} ms)\n` +
    (x.webviewPhases ? `  reader:       in the webview, ms from its script start: ${phasesOf(x)}\n` : '');
  return (
    `  reader:     asymptote.pdf first page drawn ${r.firstRenderMs ?? '?'} ms after opening (goal ≤ 1500; webview script start → page ${r.webviewFirstRenderMs ?? '?'} ms, goal ≤ 500)\n` +
    `  reader:     first page visible (image) ${image(r)}\n` +
    steps(r) +
    (o
      ? `  reader:     reopened at page ${o.page}: pdf.js drew it ${o.firstRenderMs ?? '?'} ms after opening (script start → page ${o.webviewFirstRenderMs ?? '?'} ms); image ${image(o)}\n` +
        steps(o)
      : '') +
    (r.bookBytes
      ? `  reader:     bytes of the book sent to the webview: ${r.bytesAtFirstPage ?? '?'} for the first page, ${r.bytesSentByNow ?? '?'} after the reader tests, of ${r.bookBytes}\n`
      : '') +
    (probe
      ? `  reader:     webview resource loader, Range bytes=0-1023 of a ${probe.fullBytes}-byte asset: HTTP ${probe.status}, ${probe.rangeBytes} bytes, Content-Range ${probe.contentRange ?? '-'} (${probe.rangeBytes === 1024 ? 'honoured' : 'NOT honoured'}); plain GET Accept-Ranges ${probe.fullAcceptRanges ?? '-'}, Content-Length ${probe.fullContentLength ?? '-'}\n`
      : probed?.error
        ? `  reader:     range probe failed: ${probed.error}\n`
        : '') +
    (s
      ? `  reader:     longest frame scrolling ${s.pages} pages ${s.longestFrameMs} ms (goal ≤ 100; ${s.frames} frames in ${s.ms} ms, ${s.pagesRendered} pages drawn on the way; ${s.clockFrames ?? '?'} frames timed by the clock, ${s.slowFrames ?? '?'} over 100 ms; ranges ${JSON.stringify(s.ranges ?? null)}; page at rest ${JSON.stringify(s.page ?? null)})\n`
      : '') +
    (r.scrollError ? `  reader:     scroll figure not measured: ${r.scrollError}\n` : '')
  );
}
