import { frameRect, pageRect, type LayoutBlock, type Rect, type TextItem } from './pdfTypes';

/** A line in its runs' frame (TextItem's `rot`): lines and blocks are found there, as on an upright page. */
interface Line {
  items: TextItem[];
  rect: Rect;
  text: string;
  fontHeight: number;
  rot: TextItem['rot'];
}

const union = (a: Rect, b: Rect): Rect => {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
};

/** Groups items (content order) into lines: same turn and baseline, no large backwards jump. */
export function groupLines(items: TextItem[]): Line[] {
  const lines: Line[] = [];
  let cur: Line | undefined;
  for (const it of items) {
    const rect = { x: it.x, y: it.y, w: it.w, h: it.h };
    if (cur) {
      const last = cur.items[cur.items.length - 1];
      const sameBase = Math.abs(last.y + last.h - (it.y + it.h)) < Math.max(last.h, it.h) * 0.5;
      const gap = it.x - (last.x + last.w);
      if (!last.eol && last.rot === it.rot && sameBase && gap > -last.h && gap < last.h * 6) {
        if (gap > Math.min(last.h, it.h) * 0.12 && !/\s$/.test(last.str)) cur.text += ' ';
        cur.text += it.str;
        cur.items.push(it);
        cur.rect = union(cur.rect, rect);
        cur.fontHeight = Math.max(cur.fontHeight, it.fontHeight);
        continue;
      }
    }
    cur = { items: [it], rect, text: it.str, fontHeight: it.fontHeight, rot: it.rot };
    lines.push(cur);
  }
  return lines;
}

/** The most common font height on the page, weighted by characters. */
export function bodyFontHeight(items: TextItem[]): number {
  const weight = new Map<number, number>();
  for (const it of items) {
    const k = Math.round(it.fontHeight * 2) / 2;
    weight.set(k, (weight.get(k) ?? 0) + it.str.length);
  }
  let best = 10;
  let bestW = -1;
  for (const [k, w] of weight) if (w > bestW) [best, bestW] = [k, w];
  return best;
}

const LIST_START = /^\s*(?:[•◦▪∙·\-–*]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/u;

/** The page's width and height (top-left viewport points, as the items). */
export interface PageSize {
  width: number;
  height: number;
}

function labelOf(block: Line[], body: number, page: PageSize): string {
  const text = block
    .map((l) => l.text)
    .join(' ')
    .trim();
  const rect = block.reduce((r, l) => union(r, l.rect), block[0].rect);
  const fh = Math.max(...block.map((l) => l.fontHeight));
  // The page's top and bottom as its runs read them (a turned page's are its sides).
  const frame = frameRect({ x: 0, y: 0, w: page.width, h: page.height }, block[0].rot);
  const inMargin = rect.y < frame.y + frame.h * 0.08 || rect.y + rect.h > frame.y + frame.h * 0.92;
  if (block.length === 1 && inMargin && /^[\divxlcIVXLC\s.\-–]{1,8}$/.test(text)) return 'page_number';
  const monoItems = block.reduce((n, l) => n + l.items.filter((i) => i.mono).length, 0);
  const allItems = block.reduce((n, l) => n + l.items.length, 0);
  if (allItems > 0 && monoItems / allItems > 0.6) return 'code';
  if (fh > body * 1.15 && block.length <= 3 && text.length < 160) return 'heading';
  if (/^(?:fig(?:ure)?|table|tab)\.?\s*\d/i.test(text) && text.length < 300) return 'caption';
  if (LIST_START.test(block[0].text)) return 'list';
  return 'paragraph';
}

/**
 * Layout blocks in detection order: lines joined while they stay in the same
 * column, turn, font size and spacing. Not reading order; good enough for
 * anchoring. Their rectangles stand on the page as anchor rectangles do
 * (a turned run's block turned back from its frame).
 */
export function layoutBlocks(items: TextItem[], page: PageSize): LayoutBlock[] {
  const lines = groupLines(items);
  if (!lines.length) return [];
  const body = bodyFontHeight(items);
  const groups: Line[][] = [];
  let cur: Line[] = [];
  for (const line of lines) {
    const prev = cur[cur.length - 1];
    if (prev) {
      const vgap = line.rect.y - (prev.rect.y + prev.rect.h);
      const sizeChange = Math.abs(line.fontHeight - prev.fontHeight) > Math.max(0.9, prev.fontHeight * 0.12);
      const leftMoved =
        Math.abs(line.rect.x - prev.rect.x) > prev.fontHeight * 4 && line.rect.x > prev.rect.x + prev.rect.w;
      const monoChange = !!line.items[0].mono !== !!prev.items[0].mono;
      const turned = line.rot !== prev.rot;
      if (
        vgap < -prev.fontHeight * 2 ||
        vgap > prev.fontHeight * 0.9 ||
        sizeChange ||
        leftMoved ||
        monoChange ||
        turned
      ) {
        groups.push(cur);
        cur = [];
      }
    }
    cur.push(line);
  }
  if (cur.length) groups.push(cur);
  return groups.map((g, index) => {
    const rect = pageRect(
      g.reduce((r, l) => union(r, l.rect), g[0].rect),
      g[0].rot,
    );
    const round = (n: number) => Math.round(n * 100) / 100;
    return {
      index,
      text: g.map((l) => l.text).join('\n'),
      label: labelOf(g, body, page),
      rect: { x: round(rect.x), y: round(rect.y), w: round(rect.w), h: round(rect.h) },
    };
  });
}
