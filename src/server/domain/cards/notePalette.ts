import { assertStudySet } from '../library/studySets';
import type { Db } from './noteRows';

/** fillIndex values: 0 does not mean "no fill"; 2 does. */
export const FILL_INDEX_SEMANTICS = {
  '-1': 'legacy_adaptive',
  '0': 'fill_and_stroke',
  '1': 'fill_only',
  '2': 'stroke_only',
} as const;

export interface PaletteEntry {
  colorIndex: number;
  /** The card colour as stored (#RRGGBB). */
  baseColor: string;
  /** The colour views draw; equal to baseColor in the default palette. */
  displayColor: string;
}

/**
 * The 16 card colours (colorIndex 0..15): four light tints, their saturated
 * forms, four dark tones, then white, two greys and lavender. The VS Code
 * views draw card icons with the same values.
 */
export const NOTE_PALETTE_HEX = [
  '#FFF6A8', // 0 light yellow
  '#CDEFC4', // 1 light green
  '#C4DDF7', // 2 light blue
  '#F7C9D0', // 3 light pink
  '#FFE14D', // 4 yellow
  '#7DD87A', // 5 green
  '#5BAEF0', // 6 blue
  '#EE6A6A', // 7 red
  '#F5A04A', // 8 orange
  '#3C8F5A', // 9 dark green
  '#2F5FB3', // 10 dark blue
  '#A83A3A', // 11 dark red
  '#FFFFFF', // 12 white
  '#E2E2E2', // 13 light grey
  '#A9A9A9', // 14 grey
  '#C7B2E8', // 15 lavender
] as const;

export const NOTE_PALETTE: readonly PaletteEntry[] = NOTE_PALETTE_HEX.map((hex, colorIndex) => ({
  colorIndex,
  baseColor: hex,
  displayColor: hex,
}));

/** GET /study-sets/{id}/note-palette: sets have no palette of their own yet, so every set reads the default. */
export function readNotePalette(db: Db, topicid: string) {
  assertStudySet(db, topicid);
  return {
    topicid,
    palette: NOTE_PALETTE,
    count: NOTE_PALETTE.length,
    source: 'default' as const,
    fillIndexSemantics: FILL_INDEX_SEMANTICS,
  };
}
