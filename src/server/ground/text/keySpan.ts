import type { Rect, TextItem } from '../pdf/pdfTypes';
import type { FoldedText } from './fold';
import { charEnd, glyphBand, pageRect, spanEdges } from './glyphBoxes';
import { quoteEnds, walkAfter, walkBefore, type ItemRun } from './quoteEnds';

/**
 * Maps matched key ranges back to a page: rectangles (one per line or
 * fragment) and the page's own text of the match.
 */

/** The items' parts covered by key chars [start, last], in order: [item, from, to) per run. */
function runsOf(f: FoldedText, start: number, last: number): ItemRun[] {
  const runs: ItemRun[] = [];
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

const round = (v: number) => Math.round(v * 100) / 100;

/** The smallest rectangle holding both. */
export function unionRect(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/** Same line: they overlap vertically by half the smaller height and the second does not start far away. */
function sameLine(a: Rect, b: Rect): boolean {
  const overlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  const h = Math.min(a.h, b.h);
  return overlap >= h / 2 && b.x >= a.x - h && b.x - (a.x + a.w) <= 3 * Math.max(a.h, b.h);
}

/**
 * A column of single glyphs (CJK set top to bottom glyph by glyph, as
 * Chromium prints writing-mode: vertical-rl): the same left and width, the
 * second starting below the first's top and within its box.
 */
function sameColumn(a: Rect, b: Rect): boolean {
  return Math.abs(a.x - b.x) < 0.5 && Math.abs(a.w - b.w) < 0.5 && b.y > a.y && b.y <= a.y + a.h + 0.5;
}

/**
 * One rectangle per line or fragment under key ranges [start, end) (in page
 * order of the match), each the union of the matched parts of its items:
 * from the first glyph's left edge to the last glyph's right edge
 * (glyphBoxes.ts), over the font's ascent and descent. The key holds
 * letters and digits only, so punctuation the quote begins or ends with is
 * added from the page beside the match, as matchedText takes it. Empty
 * when nothing has a size.
 */
export function rectsOfKeys(
  items: readonly TextItem[],
  f: FoldedText,
  ranges: readonly (readonly [number, number])[],
  quote?: string,
): Rect[] {
  if (!ranges.length) return [];
  const runs = ranges.flatMap(([start, end]) => runsOf(f, start, end - 1));
  // Between two runs the quote goes on: what stands beside a run up to a space ("Note." before a line break) is in it.
  for (let k = 0; k + 1 < runs.length; k++) {
    const [a, b] = [runs[k], runs[k + 1]];
    if (a.item === b.item) continue;
    const sa = items[a.item].str;
    while (a.to < sa.length && !/\s/.test(sa[a.to])) a.to++;
    const sb = items[b.item].str;
    while (b.from > 0 && !/\s/.test(sb[b.from - 1])) b.from--;
  }
  const last = runs[runs.length - 1];
  last.to = charEnd(items[last.item].str, last.to);
  const { head, tail } = quoteEnds(quote);
  const all = [
    ...walkBefore(items, runs[0].item, runs[0].from, head),
    ...runs,
    ...walkAfter(items, last.item, last.to, tail),
  ];
  // Lines are joined in their runs' frame (a turned run's, pdfTypes.ts's rot), then put on the page.
  const rects: { box: Rect; rot: TextItem['rot']; glyph: boolean }[] = [];
  for (const { item, from, to } of all) {
    const it = items[item];
    const [left, right] = spanEdges(it, from, to);
    const band = glyphBand(it);
    const box: Rect = { x: left, y: band.y, w: right - left, h: band.h };
    if (!(box.w > 0 && box.h > 0)) continue;
    const prev = rects[rects.length - 1];
    const glyph = it.str.trim().length === 1;
    if (prev && prev.rot === it.rot && (sameLine(prev.box, box) || (prev.glyph && glyph && sameColumn(prev.box, box))))
      prev.box = unionRect(prev.box, box);
    else rects.push({ box, rot: it.rot, glyph });
  }
  return rects.map(({ box, rot }) => {
    const b = pageRect(box, rot);
    return { x: round(b.x), y: round(b.y), w: round(b.w), h: round(b.h) };
  });
}

/** Union of rectangles (undefined for none). */
export function unionOf(rects: readonly Rect[]): Rect | undefined {
  if (!rects.length) return undefined;
  const u = rects.reduce(unionRect);
  return { x: round(u.x), y: round(u.y), w: round(u.w), h: round(u.h) };
}

const CJK_END =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]\s*$/u;
const CJK_START =
  /^\s*[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

const isKeyChar = (c: string) => /[\p{L}\p{N}]/u.test(c);
const isSpace = (c: string) => /\s/.test(c);

/**
 * The page's text from key char `start` to key char `last`, items joined by
 * one space. The key holds letters and digits only, so punctuation the quote
 * begins or ends with (a bracket, a full stop) is taken from the page beside
 * the match when the page has punctuation there too.
 */
export function textOfKeys(
  items: readonly TextItem[],
  f: FoldedText,
  start: number,
  last: number,
  quote: string,
): string {
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
  for (
    let n = 0;
    n < Math.max(0, lead) && from > 0 && !isKeyChar(firstStr[from - 1]) && !isSpace(firstStr[from - 1]);
    n++
  )
    from--;
  for (
    let n = 0;
    n < Math.max(0, trail) && to < lastStr.length && !isKeyChar(lastStr[to]) && !isSpace(lastStr[to]);
    n++
  )
    to++;
  const parts: string[] = [];
  for (let k = firstItem; k <= lastItem; k++) {
    const s = items[k].str;
    parts.push(s.slice(k === firstItem ? from : 0, k === lastItem ? to : s.length));
  }
  return joinRuns(parts);
}

/** Runs of page text joined by one space, except between two CJK characters (CJK lines join without one). */
export function joinRuns(parts: readonly string[]): string {
  let out = '';
  for (const part of parts) out += out && !(CJK_END.test(out) && CJK_START.test(part)) ? ` ${part}` : part;
  return out.replace(/\s+/g, ' ').trim();
}
