import { NOTE_PALETTE_HEX } from '../cards/notePalette';

/** The colour a card without one is exported in: the palette's yellow, the colour of a highlighter. */
export const DEFAULT_HIGHLIGHT_INDEX = 4;

const rgbOf = (hex: string): [number, number, number] =>
  [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
const PALETTE_RGB = NOTE_PALETTE_HEX.map(rgbOf);

/** sRGB 0..255 → CIELAB (D65): distances there follow what people see (plain RGB calls a bright green closest to a dark one). */
function lab([r, g, b]: readonly number[]): [number, number, number] {
  const lin = (c: number) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const x = f((0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047);
  const y = f(0.2126 * R + 0.7152 * G + 0.0722 * B);
  const z = f((0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}
const PALETTE_LAB = PALETTE_RGB.map(lab);

/** The palette entry nearest to an RGB colour (0..255), by CIELAB distance (ΔE 1976). */
export function nearestPaletteIndex(rgb: readonly [number, number, number]): number {
  const [l, a, b] = lab(rgb);
  let best = 0;
  let bestD = Infinity;
  PALETTE_LAB.forEach(([pl, pa, pb], i) => {
    const d = (l - pl) ** 2 + (a - pa) ** 2 + (b - pb) ** 2;
    if (d < bestD) [best, bestD] = [i, d];
  });
  return best;
}

/** A card's colour as PDF RGB 0..1 (a card without one: the palette's yellow). */
export function paletteRgb01(colorIndex: number | null): [number, number, number] {
  const [r, g, b] =
    PALETTE_RGB[
      colorIndex !== null && colorIndex >= 0 && colorIndex < PALETTE_RGB.length ? colorIndex : DEFAULT_HIGHLIGHT_INDEX
    ];
  return [r / 255, g / 255, b / 255];
}
