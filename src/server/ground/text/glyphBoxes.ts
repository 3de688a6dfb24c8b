import type { TextItem } from '../pdf/pdfTypes';

// Where a run's frame stands on the page is the pdf types' own (layout blocks turn back there too).
export { pagePoint, pageRect } from '../pdf/pdfTypes';

/**
 * Where characters of a text item stand on the page: their glyphs' own
 * edges (`gx`, from the fonts' advances) when extraction measured them, else
 * an even share of the item's width (OCR items, pages read before glyph
 * edges). Anchor rectangles and the text under an annotation's quads both
 * read positions here, so what one writes the other reads back.
 */

const hasEdges = (it: TextItem) => !!it.gx && it.gx.length === it.str.length * 2;

/**
 * Left and right edge, in page points, of the UTF-16 units [from, to) of an
 * item's string (to > from). A right-to-left run's string is in reading
 * order and its glyphs stand right to left: [from, to) is mirrored.
 */
export function spanEdges(it: TextItem, from: number, to: number): [number, number] {
  if (hasEdges(it)) {
    if (!it.rtl) return [it.x + it.gx![2 * from], it.x + it.gx![2 * (to - 1) + 1]];
    let [l, r] = [Infinity, -Infinity];
    for (let k = from; k < to; k++) [l, r] = [Math.min(l, it.gx![2 * k]), Math.max(r, it.gx![2 * k + 1])];
    return [it.x + l, it.x + r];
  }
  const len = it.str.length || 1;
  if (it.rtl) return [it.x + (it.w * (len - to)) / len, it.x + (it.w * (len - from)) / len];
  return [it.x + (it.w * from) / len, it.x + (it.w * to) / len];
}

/** The horizontal centre of unit `k` of an item's string. */
export function charCentre(it: TextItem, k: number): number {
  const [l, r] = spanEdges(it, k, k + 1);
  return (l + r) / 2;
}

/** Han, kana, Hangul, CJK punctuation and full-width or vertical forms, the radicals Chromium's ToUnicode may give. */
const IDEOGRAPHIC =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u2e80-\u2fdf\u3000-\u303f\ufe10-\ufe1f\ufe30-\ufe4f\uff00-\uffef]+$/u;
const IDEOGRAPHIC_ASCENT = 0.88;

/** poppler's descent for a font that gives none (GfxFont), in ems. */
const DEFAULT_DESCENT = 0.35;

/**
 * Top and height of an item's glyphs: from the font's ascent (or the item's
 * own top, whichever is higher) down to its descent below the baseline, so
 * a highlight holds the descenders too. Items without font metrics keep
 * their own box.
 */
export function glyphBand(it: TextItem): { y: number; h: number } {
  const baseline = it.y + it.h;
  // CJK glyphs fill an em box 0.88 em above and 0.12 em below the baseline (DW2's default): a font without metrics
  // (Chromium's Type 3 glyphs, set one by one in a vertical-rl column) would take the Latin descent, 3 pt too deep.
  if (it.asc === undefined && it.desc === undefined && it.gx && IDEOGRAPHIC.test(it.str.trim()))
    return { y: baseline - IDEOGRAPHIC_ASCENT * it.h, h: it.h };
  const top = baseline - Math.max(it.h, it.asc ?? 0);
  // A text-layer font that tells no plausible descent (pdf.js reads 0 for some TeX maths fonts): poppler's default.
  const desc = it.desc ?? (it.gx ? DEFAULT_DESCENT * it.h : 0);
  return { y: top, h: baseline + desc - top };
}

const isMark = (c: string) => /[\p{M}\udc00-\udfff]/u.test(c);

/** The end of the character that ends at `to` of `str`: past a surrogate pair's second half and combining marks. */
export function charEnd(str: string, to: number): number {
  while (to < str.length && isMark(str[to])) to++;
  return to;
}
