import type { RawTextItem } from './pageText';

/**
 * Which placed glyphs (glyphEdges.ts) make each text item of getTextContent:
 * pdf.js builds both from the same content stream in the same order, so an
 * item's first glyph stands at its origin and the rest follow, but for
 * the glyphs its text content leaves out (spaces, invisible marks, glyphs
 * outside the page) and the spaces it adds for gaps.
 */

/** One glyph in user space (the text items' space): its origin, the run's unit direction and its advance. */
export interface PlacedGlyph {
  u: string;
  x: number;
  y: number;
  dx: number;
  dy: number;
  adv: number;
}

const isBlank = (u: string) => !u || /^\s+$/u.test(u);

/** How far an item runs: its width, or a vertical item's (pdf.js's dir 'ttb') height. */
const runLength = (item: RawTextItem) => Math.abs(item.dir === 'ttb' ? item.height : item.width);

/** The glyph's text as it can stand in an item: as pdf.js reports it, or NFKC (its text content normalizes ligatures). */
function textsOf(u: string): string[] {
  const n = u.normalize('NFKC');
  return n === u ? [u] : [u, n];
}

/** Glyphs looked at past the last matched one when a character has none (glyphs the text content left out). */
const SKIP = 4;

/**
 * Left and right edge of each UTF-16 unit of an item's string, in points
 * from its origin along its run, [l0, r0, l1, r1, ...]; undefined when its
 * glyphs cannot all be found. Spaces (pdf.js adds them for gaps) span the gap
 * between their neighbours; a ligature's glyph is shared by its letters.
 */
function itemEdges(
  item: RawTextItem,
  glyphs: PlacedGlyph[],
  from: number,
): { edges: number[]; next: number } | undefined {
  const [ox, oy] = [item.transform[4], item.transform[5]];
  const str = item.str;
  const edges = new Array<number>(str.length * 2).fill(NaN);
  let j = from;
  for (let k = 0; k < str.length;) {
    if (/\s/.test(str[k])) {
      k++;
      continue;
    }
    let hit: { g: PlacedGlyph; n: number } | undefined;
    for (let t = 0; t <= SKIP && j + t < glyphs.length && !hit; t++) {
      const g = glyphs[j + t];
      if (isBlank(g.u)) continue;
      const text = textsOf(g.u).find((u) => str.startsWith(u, k));
      if (text) {
        hit = { g, n: text.length };
        j += t + 1;
      }
    }
    if (!hit) return undefined;
    const left = (hit.g.x - ox) * hit.g.dx + (hit.g.y - oy) * hit.g.dy;
    for (let n = 0; n < hit.n; n++) {
      edges[2 * (k + n)] = left + (hit.g.adv * n) / hit.n;
      edges[2 * (k + n) + 1] = left + (hit.g.adv * (n + 1)) / hit.n;
    }
    k += hit.n;
  }
  return { edges: fillSpaces(edges, runLength(item)), next: j };
}

/** Spaces (NaN so far) span from the glyph before to the glyph after (the item's ends at its edges). */
function fillSpaces(edges: number[], width: number): number[] {
  const n = edges.length / 2;
  for (let k = 0; k < n; k++) {
    if (!Number.isNaN(edges[2 * k])) continue;
    edges[2 * k] = k > 0 ? edges[2 * k - 1] : 0;
    let next = k + 1;
    while (next < n && Number.isNaN(edges[2 * next])) next++;
    edges[2 * k + 1] = next < n ? edges[2 * next] : Math.max(width, edges[2 * k]);
  }
  return edges;
}

/** Where an item's first glyph is: the first glyph from `from` at its origin (within a hair) whose text starts it. */
function findStart(item: RawTextItem, glyphs: PlacedGlyph[], from: number): number {
  const [ox, oy] = [item.transform[4], item.transform[5]];
  const tol = 0.02 * Math.max(1, Math.abs(item.dir === 'ttb' ? item.width : item.height)) + 0.05;
  const first = item.str.trimStart();
  const at = (j: number) => {
    const g = glyphs[j];
    return (
      Math.abs(g.x - ox) <= tol &&
      Math.abs(g.y - oy) <= tol &&
      !isBlank(g.u) &&
      textsOf(g.u).some((u) => first.startsWith(u))
    );
  };
  for (let j = from; j < glyphs.length; j++) if (at(j)) return j;
  for (let j = 0; j < from; j++) if (at(j)) return j;
  return -1;
}

/**
 * A right-to-left item as its glyphs stand, left to right: its string
 * reversed (pdf.js gives it in reading order). Undefined when a plain
 * reversal would misplace something: combining marks, surrogate pairs.
 */
function visualOrder(item: RawTextItem): RawTextItem | undefined {
  if (/[\p{M}\ud800-\udfff]/u.test(item.str)) return undefined;
  return { ...item, str: item.str.split('').reverse().join('') };
}

/** Edges of the visual order's units put back at their reading-order index (unit k is unit len-1-k there). */
function readingOrder(edges: number[]): number[] {
  const n = edges.length / 2;
  const out = new Array<number>(edges.length);
  for (let k = 0; k < n; k++) [out[2 * k], out[2 * k + 1]] = [edges[2 * (n - 1 - k)], edges[2 * (n - 1 - k) + 1]];
  return out;
}

/**
 * Glyph edges for each item (index-aligned with `items`; undefined where
 * none: blank items, glyphs not found, or edges that disagree
 * with the item's width by more than a point). A right-to-left item's
 * glyphs are found in visual order and its edges given in reading order.
 */
export function glyphEdges(items: RawTextItem[], glyphs: PlacedGlyph[]): (number[] | undefined)[] {
  let from = 0;
  return items.map((raw) => {
    if (typeof raw.str !== 'string' || !raw.str.trim() || !raw.transform) return undefined;
    const rtl = raw.dir === 'rtl';
    const item = rtl ? visualOrder(raw) : raw;
    if (!item) return undefined;
    const start = findStart(item, glyphs, from);
    if (start < 0) return undefined;
    const got = itemEdges(item, glyphs, start);
    if (!got) return undefined;
    from = got.next;
    const last = got.edges[got.edges.length - 1];
    const width = runLength(item);
    if (!(Math.abs(last - width) <= 1 + 0.02 * width) || got.edges.some((e) => !Number.isFinite(e))) return undefined;
    return rtl ? readingOrder(got.edges) : got.edges;
  });
}
