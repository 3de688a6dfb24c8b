import type { Rect, TextItem } from '../../ground/pdf/pdfTypes';
import { charCentre, pagePoint, pageRect } from '../../ground/text/glyphBoxes';
import { joinRuns } from '../../ground/text/keySpan';

/** Slack around a quad, in points: readers draw quads a hair inside or outside the glyphs. */
const SLACK = 0.5;

const inside = (x: number, y: number, q: Rect) =>
  x >= q.x - SLACK && x <= q.x + q.w + SLACK && y >= q.y - SLACK && y <= q.y + q.h + SLACK;

/**
 * The page's text under a text-markup annotation: every character whose
 * centre lies in one of the quads (characters placed where their glyphs
 * are, as the anchoring side cuts rectangles: glyphBoxes.ts), in the page's content
 * order. Contiguous characters of an item form one run; runs are joined as
 * the text engine joins a match's lines (a space, none between CJK).
 */
export function textUnderQuads(items: readonly TextItem[], quads: readonly Rect[]): string {
  const runs: string[] = [];
  for (const it of items) {
    const cy = it.y + it.h / 2;
    // Cheap reject: the item's line crosses no quad (a turned run's line put on the page: pdfTypes.ts's rot).
    const line = pageRect({ x: it.x, y: cy, w: it.w, h: 0 }, it.rot);
    const crosses = (q: Rect) =>
      line.y <= q.y + q.h + SLACK &&
      line.y + line.h >= q.y - SLACK &&
      line.x <= q.x + q.w + SLACK &&
      line.x + line.w >= q.x - SLACK;
    if (!quads.some(crosses)) continue;
    let run = '';
    for (let k = 0; k < it.str.length; k++) {
      const [cx, y] = pagePoint(charCentre(it, k), cy, it.rot);
      if (quads.some((q) => inside(cx, y, q))) run += it.str[k];
      else if (run) {
        runs.push(run);
        run = '';
      }
    }
    if (run) runs.push(run);
  }
  return joinRuns(runs.map((r) => r.trim()).filter(Boolean));
}
