/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type { ReaderHighlight } from './protocol';

/** The boxes drawn for a card: one per line when the anchor has several, else its one rectangle. */
const boxesOf = (h: ReaderHighlight) => (h.rects?.length ? h.rects : [h.rect]);

/** What the highlight layer needs of a pdf.js page view. */
export interface PageViewLike {
  div: HTMLDivElement;
  viewport: { width: number; height: number; scale: number };
}

/**
 * Anchored cards drawn over their rectangles. The layer sits under the text
 * layer (so selecting text still works) and is positioned in percent of the
 * page, so a zoom's CSS stretch keeps it in place until the page redraws.
 * A click on the text is hit-tested against the rectangles instead.
 */
export class HighlightLayer {
  private byPage = new Map<number, ReaderHighlight[]>();

  set(items: ReaderHighlight[]): void {
    this.byPage = new Map();
    for (const h of items) {
      const list = this.byPage.get(h.page) ?? [];
      list.push(h);
      this.byPage.set(h.page, list);
    }
  }

  get count(): number {
    let n = 0;
    for (const l of this.byPage.values()) n += l.length;
    return n;
  }

  pages(): number[] {
    return [...this.byPage.keys()];
  }

  find(noteid: string): ReaderHighlight | undefined {
    for (const l of this.byPage.values()) for (const h of l) if (h.noteid === noteid) return h;
    return undefined;
  }

  /** (Re)draws the page's highlights; pdf.js may have dropped the layer when it reset the page. */
  draw(pageNumber: number, view: PageViewLike): void {
    view.div.querySelector(':scope > .sb-highlights')?.remove();
    const items = this.byPage.get(pageNumber);
    if (!items?.length) return;
    const { width, height, scale } = view.viewport;
    const w = width / scale;
    const h = height / scale;
    const layer = document.createElement('div');
    layer.className = 'sb-highlights';
    for (const item of items) {
      for (const r of boxesOf(item)) {
        const el = document.createElement('div');
        el.className = 'sb-highlight';
        el.dataset.noteid = item.noteid;
        el.title = item.title;
        el.style.left = `${(r.x / w) * 100}%`;
        el.style.top = `${(r.y / h) * 100}%`;
        el.style.width = `${(r.width / w) * 100}%`;
        el.style.height = `${(r.height / h) * 100}%`;
        el.style.setProperty('--sb-color', item.color);
        layer.append(el);
      }
    }
    const wrapper = view.div.querySelector(':scope > .canvasWrapper');
    if (wrapper) wrapper.after(layer);
    else view.div.prepend(layer);
  }

  /**
   * The card under a point of the page (PDF points, top-left): in one of the boxes drawn, which cover the glyphs
   * (the bridge's rectangles), with a quarter point for rounding, so a click beside a highlight is not on its card.
   */
  hit(pageNumber: number, x: number, y: number): ReaderHighlight | undefined {
    const slack = 0.25;
    return this.byPage
      .get(pageNumber)
      ?.find((h) =>
        boxesOf(h).some(
          (r) => x >= r.x - slack && x <= r.x + r.width + slack && y >= r.y - slack && y <= r.y + r.height + slack,
        ),
      );
  }

  flash(noteid: string): void {
    for (const el of document.querySelectorAll<HTMLElement>(`.sb-highlight[data-noteid="${CSS.escape(noteid)}"]`)) {
      el.classList.remove('flash');
      void el.offsetWidth; // restart the animation
      el.classList.add('flash');
    }
  }
}
