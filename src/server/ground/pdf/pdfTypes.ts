/**
 * Data produced by the reading pipeline. Coordinates are PDF points in the
 * page's viewport at scale 1 with the origin at the top-left corner (y grows
 * downwards), so rectangles can be shown, located and drawn the same way.
 */

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One run of text as pdf.js (or OCR) reports it. `y` is the top of the run. */
export interface TextItem extends Rect {
  str: string;
  /** Font-size proxy: hypot of the transform's second column (points). */
  fontHeight: number;
  /** True when a line break follows this item. */
  eol?: boolean;
  /** True when pdf.js classifies the font as monospace. */
  mono?: boolean;
  /**
   * Left and right edge of each UTF-16 unit of `str`, in points from `x`
   * along the run ([l0, r0, l1, r1, ...]), from the glyphs' own advances
   * (glyphEdges.ts). Absent for OCR items and pages read before it: there a
   * character gets an even share of `w`.
   */
  gx?: number[];
  /**
   * A right-to-left run (pdf.js's dir 'rtl'): `str` is in reading order, its
   * glyphs stand right to left, so character 0 is at the right end.
   */
  rtl?: boolean;
  /**
   * The run's direction on the page, clockwise from rightwards (a rotated
   * page, or a line set on its side). x, y, w, h and gx are then in the
   * run's frame: the page turned so the run goes rightwards, so lines and
   * spans are found as on any page; pageRect (below) turns a
   * frame rectangle back onto the page.
   */
  rot?: 90 | 180 | 270;
  /** The font's ascent and descent in points above and below the baseline (`y + h`), when the font tells them. */
  asc?: number;
  desc?: number;
}

export interface LayoutBlock {
  index: number;
  text: string;
  /** heading | paragraph | list | code | caption | page_number */
  label: string;
  rect: Rect;
}

export interface PageData {
  /** 1-based PDF page order. */
  page: number;
  width: number;
  height: number;
  text: string;
  items: TextItem[];
  blocks: LayoutBlock[];
  /** True when the text came from OCR (no readable text layer). */
  ocr: boolean;
  /** True when neither the text layer nor OCR gave readable text. */
  unreadable?: boolean;
}

export interface OutlineSegment {
  startPage: number;
  title: string;
  level: number;
}

export interface DocumentInfo {
  pageCount: number;
  outline: OutlineSegment[];
  title?: string;
}

/** A point of a run's frame (TextItem's `rot`) on the page: the frame's turn undone. */
export function pagePoint(u: number, v: number, rot: TextItem['rot']): [number, number] {
  if (rot === 90) return [-v, u];
  if (rot === 180) return [-u, -v];
  if (rot === 270) return [v, -u];
  return [u, v];
}

/** A rectangle of a run's frame on the page (the same rectangle when the run is not turned). */
export function pageRect(r: Rect, rot: TextItem['rot']): Rect {
  if (!rot) return r;
  const [ax, ay] = pagePoint(r.x, r.y, rot);
  const [bx, by] = pagePoint(r.x + r.w, r.y + r.h, rot);
  return { x: Math.min(ax, bx), y: Math.min(ay, by), w: Math.abs(bx - ax), h: Math.abs(by - ay) };
}

/** A rectangle of the page in a run's frame: pageRect's inverse. */
export function frameRect(r: Rect, rot: TextItem['rot']): Rect {
  return rot ? pageRect(r, ((360 - rot) % 360) as 90 | 180 | 270) : r;
}
