/// <reference lib="dom" />
// The opening picture: the page the reader opens at, rendered by the host, shown
// where pdf.js will draw that page (the layout is CSS: markup.ts openingStage,
// media/pdfReader.css) until pdf.js has drawn it. Loading pdf.js, starting its
// worker and parsing the book take over a second; the picture needs none of them.
import type { ReaderProtocol } from './protocol';
import { openingStage } from './markup';

type FirstImage = ReaderProtocol['pageEvents']['firstImage'];

/** How long pdf.js waits for the picture's paint: a picture that has not painted by then (a hidden window) waits no longer. */
const PAINT_WAIT_MS = 400;

export class OpeningImage {
  private stage = document.getElementById('openingStage');
  private page = 0;
  private source: FirstImage['source'] = 'html';
  private url: string | undefined;
  private reported = false;
  /** When a `pageImage` arrived (ms since the script started). */
  private arrived: number | undefined;
  private paintedNow: () => void = () => undefined;
  /**
   * Resolves once the first HTML's picture has painted (at most PAINT_WAIT_MS), at once when there is none.
   * Evaluating pdf.js holds the page's thread for hundreds of ms; started first, it held this paint too.
   */
  readonly painted: Promise<void>;

  /** `started`: performance.now() when the page's script started (the figures count from there). */
  constructor(
    private readonly started: number,
    private readonly onVisible: (m: FirstImage) => void,
  ) {
    const img = this.img();
    this.painted = img
      ? new Promise((resolve) => ((this.paintedNow = resolve), setTimeout(resolve, PAINT_WAIT_MS)))
      : Promise.resolve();
    if (img) this.watch(img, 'html');
    // Someone scrolling, zooming or clicking before pdf.js drew the page: the picture would stand in the wrong place.
    for (const type of ['wheel', 'keydown', 'pointerdown'])
      window.addEventListener(type, () => this.remove(), { capture: true, once: true });
  }

  /** The host's picture (none came with the first HTML); ignored once pdf.js drew a page, or after a first one. */
  show(msg: ReaderProtocol['hostEvents']['pageImage'], drawn: boolean): void {
    if (this.stage || this.reported || drawn) return;
    this.arrived = Math.round(performance.now() - this.started);
    this.url = URL.createObjectURL(new Blob([msg.webp], { type: 'image/webp' }));
    document.querySelector('main.reader')?.insertAdjacentHTML('beforeend', openingStage({ ...msg, src: this.url }));
    this.stage = document.getElementById('openingStage');
    const img = this.img();
    if (img) this.watch(img, 'channel');
  }

  /**
   * pdf.js drew `pageNumber`: when it is the picture's page, the picture goes, and the answer is how far (px)
   * the canvas stands from where the picture stood (0: no jump); undefined when no picture was up.
   */
  handOver(pageNumber: number, pageDiv: HTMLElement): number | undefined {
    const img = this.img();
    if (!img || pageNumber !== this.page) return undefined;
    const a = img.getBoundingClientRect();
    const b = (pageDiv.querySelector(':scope > .canvasWrapper') ?? pageDiv).getBoundingClientRect();
    this.remove();
    return (
      Math.round(
        Math.max(
          Math.abs(a.left - b.left),
          Math.abs(a.top - b.top),
          Math.abs(a.width - b.width),
          Math.abs(a.height - b.height),
        ) * 10,
      ) / 10
    );
  }

  remove(): void {
    this.stage?.remove();
    this.stage = null;
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = undefined;
  }

  private img(): HTMLImageElement | null {
    return this.stage?.querySelector<HTMLImageElement>('#openingPage') ?? null;
  }

  /** Reports when the picture was first painted: Element Timing (it counts a paint from the first HTML, before this script), else decoded and a frame later. */
  private watch(img: HTMLImageElement, source: FirstImage['source']): void {
    this.page = Number(img.dataset.page);
    this.source = source;
    const report = (at: number) => {
      if (this.reported || !this.page) return;
      this.reported = true;
      this.paintedNow();
      this.onVisible({
        page: this.page,
        ms: Math.round(at - this.started),
        ago: Math.max(0, Math.round(performance.now() - at)),
        source: this.source,
        arrived: this.arrived,
      });
    };
    if (PerformanceObserver.supportedEntryTypes?.includes('element')) {
      const observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries() as Array<
          PerformanceEntry & { identifier?: string; renderTime?: number; loadTime?: number }
        >) {
          if (e.identifier !== 'opening-page') continue;
          observer.disconnect();
          report(e.renderTime || e.loadTime || performance.now());
        }
      });
      observer.observe({ type: 'element', buffered: true });
    } else
      void img.decode().then(
        () => requestAnimationFrame(() => report(performance.now())),
        () => undefined,
      );
  }
}
