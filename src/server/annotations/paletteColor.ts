import { NOTE_PALETTE_HEX } from '../cards/notePalette';

/** The colour a card without one is exported in: the palette's yellow, the colour of a highlighter. */
export const DEFAULT_HIGHLIGHT_INDEX = 4;

const rgbOf = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
const PALETTE_RGB = NOTE_PALETTE_HEX.map(rgbOf);

/**
 * The palette entry nearest to an RGB colour (0..255), by the "redmean"
 * weighted distance: a cheap approximation of how far apart people see two
 * colours, better than plain RGB distance for yellows and greens.
 */
export function nearestPaletteIndex([r, g, b]: readonly [number, number, number]): number {
  let best = 0;
  let bestD = Infinity;
  PALETTE_RGB.forEach(([pr, pg, pb], i) => {
    const rm = (r + pr) / 2;
    const d = (2 + rm / 256) * (r - pr) ** 2 + 4 * (g - pg) ** 2 + (2 + (255 - rm) / 256) * (b - pb) ** 2;
    if (d < bestD) [best, bestD] = [i, d];
  });
  return best;
}

/** A card's colour as PDF RGB 0..1 (a card without one: the palette's yellow). */
export function paletteRgb01(colorIndex: number | null): [number, number, number] {
  const [r, g, b] = PALETTE_RGB[colorIndex !== null && colorIndex >= 0 && colorIndex < PALETTE_RGB.length ? colorIndex : DEFAULT_HIGHLIGHT_INDEX];
  return [r / 255, g / 255, b / 255];
}
