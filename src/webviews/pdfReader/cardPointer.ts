/// <reference lib="dom" />
import type { HighlightLayer, PageViewLike } from './highlights';

/**
 * The pointer over card highlights: a plain click reveals the card (`clicked`), hovering shows its title.
 * Hit-tested, as the highlights let the pointer through to the text layer.
 */
export function followPointerOnCards(
  container: HTMLElement,
  highlights: HighlightLayer,
  pageView: (page: number) => PageViewLike | undefined,
  clicked: (noteid: string) => void,
): void {
  /** The card highlight under the pointer, if any. */
  function highlightAt(e: MouseEvent) {
    const pageDiv = (e.target as Element | null)?.closest?.('.page') as HTMLElement | null;
    const page = Number(pageDiv?.dataset.pageNumber);
    const view = page ? pageView(page) : undefined;
    if (!pageDiv || !view) return undefined;
    const box = (pageDiv.querySelector(':scope > .canvasWrapper') ?? pageDiv).getBoundingClientRect();
    return highlights.hit(
      page,
      (e.clientX - box.left) / view.viewport.scale,
      (e.clientY - box.top) / view.viewport.scale,
    );
  }

  // A click that ends a selection is not a click on a card.
  container.addEventListener('click', (e) => {
    if (!document.getSelection()?.isCollapsed) return;
    const hit = highlightAt(e);
    if (hit) {
      highlights.flash(hit.noteid);
      clicked(hit.noteid);
    }
  });
  let hoverFrame = 0;
  container.addEventListener('mousemove', (e) => {
    if (hoverFrame) return;
    hoverFrame = requestAnimationFrame(() => {
      hoverFrame = 0;
      const hit = highlightAt(e);
      container.title = hit ? hit.title : '';
      container.classList.toggle('over-card', !!hit);
    });
  });
}
