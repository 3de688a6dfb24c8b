/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { rangeStats } from './bookRange';

interface ViewerLike {
  currentPageNumber: number;
  pagesCount: number;
  getPageView(index: number): unknown;
}

/** The next frame; after a second without one (a throttled, hidden frame) the clock instead, so the figure still comes back. */
let clockFrames = 0;
const frame = () =>
  new Promise<number>((resolve) => {
    const t = setTimeout(() => {
      clockFrames++;
      resolve(performance.now());
    }, 1000);
    requestAnimationFrame((now) => {
      clearTimeout(t);
      resolve(now);
    });
  });

/**
 * Scrolls through `pages` pages from `from`, a fixed distance per frame
 * (four frames a page: a brisk scroll), and times every frame with
 * requestAnimationFrame. pdf.js renders the pages that come into view as it
 * would for a person scrolling. Figures only: the suite prints them.
 */
export async function benchScroll(viewer: ViewerLike, container: HTMLElement, from: number, pages: number) {
  const last = Math.min(viewer.pagesCount, from + pages);
  const top = (p: number) => (viewer.getPageView(p - 1) as { div: HTMLElement }).div.offsetTop;
  viewer.currentPageNumber = from;
  await frame();
  await frame();
  const start = top(from);
  const end = top(last);
  const step = Math.max(1, (end - start) / ((last - from) * 4));
  container.scrollTop = start;
  // Where this page stands before it scrolls: animation frames in half a second at rest, whether it is visible and focused.
  const idleFrames = await countFrames(500);
  const page = { idleFramesPerS: idleFrames * 2, visibility: document.visibilityState, focused: document.hasFocus() };
  clockFrames = 0;
  let slowFrames = 0;
  const ranges0 = { ...rangeStats };
  let prev = await frame();
  const t0 = prev;
  let longest = 0;
  let frames = 0;
  // The position is kept here: reading scrollTop back would force a layout every frame, which a wheel does not.
  for (let pos = start; pos < end;) {
    pos = Math.min(end, pos + step);
    container.scrollTop = pos;
    const now = await frame();
    longest = Math.max(longest, now - prev);
    if (now - prev > 100) slowFrames++;
    prev = now;
    frames++;
  }
  const ms = prev - t0;
  let pagesRendered = 0;
  for (let p = from; p <= last; p++)
    if ((viewer.getPageView(p - 1) as { renderingState?: number }).renderingState === 3) pagesRendered++;
  const requests = rangeStats.requests - ranges0.requests;
  const ranges = {
    requests,
    kb: Math.round((rangeStats.bytes - ranges0.bytes) / 1024),
    meanMs: requests ? Math.round((rangeStats.totalMs - ranges0.totalMs) / requests) : 0,
    maxMs: Math.round(rangeStats.maxMs),
  };
  return {
    longestFrameMs: Math.round(longest * 10) / 10,
    frames,
    ms: Math.round(ms),
    pagesRendered,
    clockFrames,
    slowFrames,
    ranges,
    page,
  };
}

/** Animation frames that come in `ms` (none when the page's frames are stopped). */
function countFrames(ms: number): Promise<number> {
  return new Promise((resolve) => {
    let n = 0;
    const end = performance.now() + ms;
    const tick = () => {
      n++;
      if (performance.now() < end) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    setTimeout(() => resolve(n), ms + 20);
  });
}
