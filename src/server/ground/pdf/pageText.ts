import type { TextItem } from './pdfTypes';

/** The parts of a pdf.js text item we read (a TextItem of pdfjs-dist, not a TextMarkedContent). */
export interface RawTextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
  fontName?: string;
  /** 'ltr', 'rtl' or 'ttb'. */
  dir?: string;
}

type Matrix = [number, number, number, number, number, number];

const multiply = (m1: number[], m2: number[]): Matrix => [
  m1[0] * m2[0] + m1[2] * m2[1],
  m1[1] * m2[0] + m1[3] * m2[1],
  m1[0] * m2[2] + m1[2] * m2[3],
  m1[1] * m2[2] + m1[3] * m2[3],
  m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
  m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
];

const round2 = (n: number) => Math.round(n * 100) / 100;

/** What pdf.js tells of a font in `getTextContent().styles`. */
export interface FontStyle {
  fontFamily?: string;
  ascent?: number;
  descent?: number;
}

/** Glyph edges and font metrics beside the items (pageExtraction.ts). */
export interface ItemGeometry {
  /** Per raw item (index-aligned): glyphEdges.ts's edges in user space. */
  edges?: (number[] | undefined)[];
  styles?: Record<string, FontStyle>;
}

/** The font's ascent and descent in points, when plausible (some fonts report 0 or a whole em box). */
function fontExtent(style: FontStyle | undefined, fontHeight: number): { asc?: number; desc?: number } {
  const a = style?.ascent;
  const d = style?.descent;
  if (!(typeof a === 'number' && typeof d === 'number' && a > 0.3 && a <= 1.5 && d < 0 && d >= -0.6)) return {};
  return { asc: round2(a * fontHeight), desc: round2(-d * fontHeight) };
}

/** Page to run frame (pdfTypes.ts's `rot`): (px, py) → 90: (py, −px), 180: (−px, −py), 270: (−py, px). */
const TO_FRAME: Record<90 | 180 | 270, number[]> = {
  90: [0, -1, 1, 0, 0, 0],
  180: [-1, 0, 0, -1, 0, 0],
  270: [0, 1, -1, 0, 0, 0],
};

/**
 * A vertical font's run (pdf.js's dir 'ttb') goes down its text space's y
 * axis: turned a quarter so it runs along x like any run, its glyphs' right
 * side up, its frame is found as for a horizontal run (a column on an
 * upright page is a run turned 90°).
 */
const DOWN_THE_COLUMN: Matrix = [0, -1, 1, 0, 0, 0];

/** A run's matrix in its frame and the frame's turn: runs within 2° of down, left or up are turned; others stay. */
function runFrame(m: Matrix): [Matrix, 90 | 180 | 270 | undefined] {
  const angle = (Math.atan2(m[1], m[0]) * 180) / Math.PI;
  const turn = (Math.round(angle / 90) * 90 + 360) % 360;
  // A mirrored run (its glyphs' up is not left of its direction) stays as it is.
  const mirrored = m[0] * m[3] - m[1] * m[2] > 0;
  if (!turn || mirrored || Math.abs(angle - Math.round(angle / 90) * 90) > 2) return [m, undefined];
  const rot = turn as 90 | 180 | 270;
  return [multiply(TO_FRAME[rot], m), rot];
}

/**
 * Turns pdf.js text items into positioned items in top-left viewport space.
 * Whitespace-only items are dropped; their line break moves to the item before.
 * `monoFonts` names the fonts pdf.js classifies as monospace (for code blocks).
 */
export function positionItems(
  raw: RawTextItem[],
  viewportTransform: number[],
  monoFonts?: Set<string>,
  geometry: ItemGeometry = {},
): TextItem[] {
  const out: TextItem[] = [];
  // Horizontal (or near) text: the run extends rightwards from the baseline origin.
  const scale = Math.hypot(viewportTransform[0], viewportTransform[1]) || 1;
  raw.forEach((it, index) => {
    if (typeof it.str !== 'string') return;
    if (it.str.trim() === '') {
      if (it.hasEOL && out.length) out[out.length - 1].eol = true;
      return;
    }
    const vertical = it.dir === 'ttb';
    const onPage = multiply(viewportTransform, it.transform);
    const [m, rot] = runFrame(vertical ? multiply(onPage, DOWN_THE_COLUMN) : onPage);
    const fontHeight = Math.hypot(m[2], m[3]) || Math.abs(it.height) || 1;
    const w = Math.abs(vertical ? it.height : it.width) * scale;
    // A column's glyphs are centred on its origin: their em boxes stand half an em either side.
    const top = vertical ? m[5] - fontHeight / 2 : m[5] - fontHeight;
    const item: TextItem & { mono?: boolean } = {
      str: it.str,
      x: round2(m[4]),
      y: round2(top),
      w: round2(w),
      h: round2(fontHeight),
      fontHeight: round2(fontHeight),
    };
    if (it.hasEOL) item.eol = true;
    if (it.dir === 'rtl' && it.str.length > 1) item.rtl = true;
    if (rot) item.rot = rot;
    if (monoFonts && it.fontName && monoFonts.has(it.fontName)) item.mono = true;
    const edges = geometry.edges?.[index];
    if (edges && edges.length === it.str.length * 2) item.gx = edges.map((e) => round2(e * scale));
    if (vertical) Object.assign(item, { asc: item.h, desc: 0 });
    else Object.assign(item, fontExtent(it.fontName ? geometry.styles?.[it.fontName] : undefined, fontHeight));
    out.push(item);
  });
  return out;
}

/** Baseline of an item (top + height). */
const baseline = (it: TextItem) => it.y + it.h;

/**
 * Page text from positioned items in content order: a newline where pdf.js
 * reports an end of line or the baseline moves, a space where runs have a gap.
 */
export function itemsToText(items: TextItem[]): string {
  let text = '';
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (i > 0) {
      const prev = items[i - 1];
      const sameLine = Math.abs(baseline(prev) - baseline(it)) < Math.max(prev.h, it.h) * 0.5;
      if (prev.eol || !sameLine) text += '\n';
      else {
        const gap = it.x - (prev.x + prev.w);
        if (gap > Math.min(prev.h, it.h) * 0.12 && !/\s$/.test(prev.str) && !/^\s/.test(it.str)) text += ' ';
      }
    }
    text += it.str;
  }
  return text.replace(/[ \t]+\n/g, '\n').trim();
}

/** True when the text has something a reader could use (not just stray glyphs). */
export function isReadableText(text: string): boolean {
  const letters = text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  return letters >= 12;
}
