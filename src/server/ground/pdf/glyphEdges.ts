import type { PdfJs } from './pdfjsLoader';
import type { RawTextItem } from './pageText';
import { glyphEdges, type PlacedGlyph } from './glyphItems';

/**
 * Where each glyph of a page stands, from pdf.js's own operator list: the
 * text state (Tm, Tc, Tw, Tz, Ts, Tf) replayed the way pdf.js's canvas draws
 * it, with each glyph's advance from the font's widths. A text item of
 * getTextContent is a run of those glyphs (pdf.js builds both from the same
 * content stream, in the same order), so each character of an item gets the
 * left and right edge of its own glyph instead of an even share of the
 * item's width.
 */

type Matrix = [number, number, number, number, number, number];

/** The parts of a pdf.js font (common objects) we read. */
interface FontLike {
  fontMatrix?: number[];
  vertical?: boolean;
  defaultVMetrics?: number[];
}

/** The parts of pdf.js's operator list and common objects we read. */
export interface OperatorListLike {
  fnArray: number[];
  argsArray: unknown[][];
}
interface GlyphLike {
  unicode: string;
  width: number;
  isSpace?: boolean;
  /** A vertical font's metrics of the glyph: [w1y, vx, vy] in glyph units (w1y < 0 goes down). */
  vmetric?: number[];
}

const mul = (m: number[], n: number[]): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

interface TextState {
  ctm: Matrix;
  tm: Matrix;
  /** Offset inside the text matrix (pdf.js's current.x / y), as moveText adds to it. */
  x: number;
  y: number;
  lineX: number;
  lineY: number;
  fontSize: number;
  fontScale: number;
  direction: number;
  charSpacing: number;
  wordSpacing: number;
  hScale: number;
  leading: number;
  rise: number;
  vertical: boolean;
  /** A vertical font's metrics for glyphs without their own (pdf.js's defaultVMetrics, from DW2). */
  vmetrics?: number[];
}

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

function initialState(): TextState {
  return {
    ctm: IDENTITY,
    tm: IDENTITY,
    x: 0,
    y: 0,
    lineX: 0,
    lineY: 0,
    fontSize: 0,
    fontScale: 0.001,
    direction: 1,
    charSpacing: 0,
    wordSpacing: 0,
    hScale: 1,
    leading: 0,
    rise: 0,
    vertical: false,
  };
}

/** Places a showText's glyphs (numbers are TJ adjustments) and moves the state past them, as pdf.js's canvas does. */
function showText(s: TextState, glyphs: (GlyphLike | number)[], out: PlacedGlyph[]): void {
  if (s.vertical) return showVertical(s, glyphs, out);
  const m = mul(s.ctm, s.tm);
  const hs = s.hScale * s.direction;
  const len = Math.hypot(m[0], m[1]) || 1;
  const [dx, dy] = [(m[0] * Math.sign(hs || 1)) / len, (m[1] * Math.sign(hs || 1)) / len];
  let x = 0;
  for (const g of glyphs) {
    if (typeof g === 'number') {
      x -= (g * s.fontSize) / 1000;
      continue;
    }
    const w = g.width * s.fontSize * s.fontScale;
    const advance = w + (s.charSpacing + (g.isSpace ? s.wordSpacing : 0)) * s.direction;
    const tx = s.x + x * hs;
    const ty = s.y + s.rise;
    out.push({
      u: g.unicode,
      x: m[0] * tx + m[2] * ty + m[4],
      y: m[1] * tx + m[3] * ty + m[5],
      dx,
      dy,
      adv: Math.abs((w + s.charSpacing * s.direction) * hs) * len,
    });
    x += advance;
  }
  s.x += x * hs;
}

/**
 * A vertical font's glyphs (Identity-V and other WMode 1 CMaps): each stands
 * at its vertical origin, the column's current point (its top, centred
 * across), and advances down by its vertical metrics (W2, else DW2's
 * default, 1 em), not by its horizontal width.
 */
function showVertical(s: TextState, glyphs: (GlyphLike | number)[], out: PlacedGlyph[]): void {
  const m = mul(s.ctm, s.tm);
  const len = Math.hypot(m[2], m[3]) || 1;
  const [dx, dy] = [-m[2] / len, -m[3] / len];
  let y = 0;
  for (const g of glyphs) {
    if (typeof g === 'number') {
      y += (g * s.fontSize) / 1000;
      continue;
    }
    const vm = g.vmetric ?? s.vmetrics;
    const h = (vm ? -vm[0] : g.width) * s.fontSize * s.fontScale;
    const spacing = (s.charSpacing + (g.isSpace ? s.wordSpacing : 0)) * s.direction;
    const ty = s.y + s.rise - y;
    out.push({
      u: g.unicode,
      x: m[0] * s.x + m[2] * ty + m[4],
      y: m[1] * s.x + m[3] * ty + m[5],
      dx,
      dy,
      adv: Math.abs(h - s.charSpacing * s.direction) * len,
    });
    y += h - spacing;
  }
  s.y -= y;
}

/** Every glyph the page shows, in content order; a vertical font's glyphs run down their column (dx, dy). */
export function placeGlyphs(
  pdfjs: Pick<PdfJs, 'OPS'>,
  list: OperatorListLike,
  fontOf: (name: string) => FontLike | undefined,
): PlacedGlyph[] {
  const OPS = pdfjs.OPS;
  const out: PlacedGlyph[] = [];
  // A form's frame is marked: pdf.js leaves out the end of an empty form, so a restore closes it too.
  const stack: { s: TextState; form: boolean }[] = [];
  let s = initialState();
  const pop = (form: boolean) => {
    while (stack.length && stack[stack.length - 1].form !== form) stack.pop();
    s = stack.pop()?.s ?? s;
  };
  const setFont = (name: string, size: number) => {
    const font = fontOf(name);
    s.fontScale = font?.fontMatrix?.[0] ?? 0.001;
    s.vertical = !!font?.vertical;
    s.vmetrics = font?.defaultVMetrics;
    s.direction = size < 0 ? -1 : 1;
    s.fontSize = Math.abs(size);
  };
  const moveText = (x: number, y: number) => {
    s.x = s.lineX += x;
    s.y = s.lineY += y;
  };
  for (let i = 0; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    const a = list.argsArray[i] as never[];
    if (fn === OPS.showText) showText(s, a[0], out);
    else if (fn === OPS.save) stack.push({ s: { ...s }, form: false });
    else if (fn === OPS.restore) pop(false);
    else if (fn === OPS.transform) s.ctm = mul(s.ctm, a);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push({ s: { ...s }, form: true });
      if (Array.isArray(a[0]) || ArrayBuffer.isView(a[0])) s.ctm = mul(s.ctm, Array.from(a[0] as ArrayLike<number>));
    } else if (fn === OPS.paintFormXObjectEnd) pop(true);
    else if (fn === OPS.beginText) {
      s.tm = IDENTITY;
      s.x = s.y = s.lineX = s.lineY = 0;
    } else if (fn === OPS.setTextMatrix) {
      s.tm = Array.from((Array.isArray(a[0]) || ArrayBuffer.isView(a[0]) ? a[0] : a) as ArrayLike<number>) as Matrix;
      s.x = s.y = s.lineX = s.lineY = 0;
    } else if (fn === OPS.moveText) moveText(a[0], a[1]);
    else if (fn === OPS.setLeadingMoveText) {
      s.leading = a[1];
      moveText(a[0], a[1]);
    } else if (fn === OPS.nextLine) moveText(0, s.leading);
    else if (fn === OPS.setLeading) s.leading = -a[0];
    else if (fn === OPS.setFont) setFont(a[0], a[1]);
    else if (fn === OPS.setCharSpacing) s.charSpacing = a[0];
    else if (fn === OPS.setWordSpacing) s.wordSpacing = a[0];
    else if (fn === OPS.setHScale) s.hScale = a[0] / 100;
    else if (fn === OPS.setTextRise) s.rise = a[0];
    else if (fn === OPS.setGState)
      for (const [key, value] of (a[0] ?? []) as [string, unknown][])
        if (key === 'Font' && Array.isArray(value)) setFont(value[0] as string, value[1] as number);
  }
  return out;
}

/** The parts of a pdf.js page we read. */
interface PageLike {
  getOperatorList(opts: { annotationMode: number }): Promise<OperatorListLike>;
  commonObjs: { has(name: string): boolean; get(name: string): unknown };
}

/**
 * Glyph edges of a page's text items (see glyphEdges): one more pass over
 * the page's content by pdf.js (its operator list; fonts are already
 * loaded by getTextContent). Nothing when that pass fails: the items then
 * keep even shares.
 */
export async function pageGlyphEdges(
  pdfjs: Pick<PdfJs, 'OPS' | 'AnnotationMode'>,
  page: PageLike,
  items: RawTextItem[],
): Promise<(number[] | undefined)[]> {
  try {
    // Annotations have no text of the page: pdf.js would build every one's appearance (50,000 highlights: +600 MB).
    const list = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
    const fontOf = (name: string) => (page.commonObjs.has(name) ? (page.commonObjs.get(name) as FontLike) : undefined);
    return glyphEdges(items, placeGlyphs(pdfjs, list, fontOf));
  } catch {
    return [];
  }
}
