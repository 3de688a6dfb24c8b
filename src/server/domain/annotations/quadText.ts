import type { Rect, TextItem } from '../../ground/pdf/pdfTypes';
import { charCentre } from '../../ground/text/glyphBoxes';
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
    // Cheap reject: the item's line crosses no quad.
    if (!quads.some((q) => cy >= q.y - SLACK && cy <= q.y + q.h + SLACK && it.x <= q.x + q.w && it.x + it.w >= q.x))
      continue;
    let run = '';
    for (let k = 0; k < it.str.length; k++) {
      const cx = charCentre(it, k);
      if (quads.some((q) => inside(cx, cy, q))) run += it.str[k];
      else if (run) {
        runs.push(run);
        run = '';
      }
    }
    if (run) runs.push(run);
  }
  return joinRuns(runs.map((r) => r.trim()).filter(Boolean));
}
