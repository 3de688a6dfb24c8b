import type { Rect, TextItem } from '../pdf/pdfTypes';
import type { FoldedText } from './fold';

/**
 * Maps a matched key range back to a page: the rectangle (union of the
 * matched parts of the items, cut proportionally inside each item) and the
 * page's own text of the match.
 */

/** The items' parts covered by key chars [start, last], in order: [item, from, to) per run. */
function runsOf(f: FoldedText, start: number, last: number): { item: number; from: number; to: number }[] {
  const runs: { item: number; from: number; to: number }[] = [];
  let k = start;
  while (k <= last) {
    const item = f.itemOf[k];
    let j = k;
    while (j + 1 <= last && f.itemOf[j + 1] === item) j++;
    runs.push({ item, from: f.offsetOf[k], to: f.offsetOf[j] + 1 });
    k = j + 1;
  }
  return runs;
}

/** Union of the matched parts of the items under key chars [start, last]; undefined when nothing has a size. */
export function rectOfKeys(items: readonly TextItem[], f: FoldedText, start: number, last: number): Rect | undefined {
  let rect: Rect | undefined;
  for (const { item, from, to } of runsOf(f, start, last)) {
    const it = items[item];
    const len = it.str.length || 1;
    const r: Rect = { x: it.x + (it.w * from) / len, y: it.y, w: (it.w * (to - from)) / len, h: it.h };
    if (!rect) rect = r;
    else {
      const x = Math.min(rect.x, r.x);
      const y = Math.min(rect.y, r.y);
      rect = { x, y, w: Math.max(rect.x + rect.w, r.x + r.w) - x, h: Math.max(rect.y + rect.h, r.y + r.h) - y };
    }
  }
  if (!rect || rect.w <= 0 || rect.h <= 0) return undefined;
  const round = (v: number) => Math.round(v * 100) / 100;
  return { x: round(rect.x), y: round(rect.y), w: round(rect.w), h: round(rect.h) };
}

const isKeyChar = (c: string) => /[\p{L}\p{N}]/u.test(c);
const isSpace = (c: string) => /\s/.test(c);

/**
 * The page's text from key char `start` to key char `last`, items joined by
 * one space. The key holds letters and digits only, so punctuation the quote
 * begins or ends with (a bracket, a full stop) is taken from the page beside
 * the match when the page has punctuation there too.
 */
export function textOfKeys(items: readonly TextItem[], f: FoldedText, start: number, last: number, quote: string): string {
  const q = quote.trim();
  const lead = [...q].findIndex((c) => isKeyChar(c) || isSpace(c));
  const qs = [...q].reverse();
  const trail = qs.findIndex((c) => isKeyChar(c) || isSpace(c));
  const firstItem = f.itemOf[start];
  const lastItem = f.itemOf[last];
  let from = f.offsetOf[start];
  let to = f.offsetOf[last] + 1;
  // A key char may come from a surrogate pair: end after its second half.
  const lastStr = items[lastItem].str;
  if (to < lastStr.length && /[\udc00-\udfff]/.test(lastStr[to])) to++;
  const firstStr = items[firstItem].str;
  for (let n = 0; n < Math.max(0, lead) && from > 0 && !isKeyChar(firstStr[from - 1]) && !isSpace(firstStr[from - 1]); n++) from--;
  for (let n = 0; n < Math.max(0, trail) && to < lastStr.length && !isKeyChar(lastStr[to]) && !isSpace(lastStr[to]); n++) to++;
  const parts: string[] = [];
  for (let k = firstItem; k <= lastItem; k++) {
    const s = items[k].str;
    parts.push(s.slice(k === firstItem ? from : 0, k === lastItem ? to : s.length));
  }
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}
