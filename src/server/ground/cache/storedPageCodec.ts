import type { TextItem } from '../pdf/pdfTypes';

/**
 * How extracted pages are bound into the store. sql.js encodes a string
 * parameter to UTF-8 in a JavaScript loop (~1 ms per page of items JSON, the
 * largest cost of upload-to-ready); a Uint8Array is copied into the wasm heap
 * at once. So text goes in as UTF-8 bytes cast back to TEXT in SQL
 * (`CAST(? AS TEXT)`: stored and indexed as text, as before), items as a BLOB
 * of compact JSON. Rows written before this keep their JSON text; the
 * decoder reads both.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes for a `CAST(? AS TEXT)` parameter. */
export const utf8 = (s: string): Uint8Array => encoder.encode(s);

const EOL = 1;
const MONO = 2;
const RTL = 4;
/** Bits 3–4: pdfTypes.ts's rot / 90. */
const ROT_SHIFT = 3;

/**
 * One item as [str, x, y, w, h, flags, fontHeight?, edges?, asc?, desc?]: fontHeight only when it differs
 * from h (null when later fields follow); glyph edges as hundredths of a point, each edge the step from the
 * one before (small integers, mostly repeated, that deflate well); the font's ascent and descent.
 */
type PackedItem = [
  string,
  number,
  number,
  number,
  number,
  number,
  (number | null)?,
  (number[] | null)?,
  number?,
  number?,
];

/** Glyph edges [l0, r0, l1, r1, ...] as steps in hundredths of a point. */
function packEdges(gx: number[]): number[] {
  let prev = 0;
  return gx.map((e) => {
    const v = Math.round(e * 100);
    const step = v - prev;
    prev = v;
    return step;
  });
}

function unpackEdges(steps: number[]): number[] {
  let at = 0;
  return steps.map((s) => (at += s) / 100);
}

/** Items as a BLOB: UTF-8 JSON of packed arrays (about half the bytes of the objects). */
export function encodeItems(items: TextItem[]): Uint8Array {
  const packed: PackedItem[] = new Array<PackedItem>(items.length);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const flags = (it.eol ? EOL : 0) | (it.mono ? MONO : 0) | (it.rtl ? RTL : 0) | (((it.rot ?? 0) / 90) << ROT_SHIFT);
    const p: PackedItem = [it.str, it.x, it.y, it.w, it.h, flags];
    const geometry = !!it.gx || it.asc !== undefined;
    if (it.fontHeight !== it.h || geometry) p.push(it.fontHeight === it.h ? null : it.fontHeight);
    if (geometry) p.push(it.gx ? packEdges(it.gx) : null);
    if (it.asc !== undefined && it.desc !== undefined) p.push(it.asc, it.desc);
    packed[i] = p;
  }
  return encoder.encode(JSON.stringify(packed));
}

/** Items from a stored value: a packed BLOB, or JSON text of item objects (older rows). */
export function decodeItems(stored: string | Uint8Array | null | undefined): TextItem[] {
  if (stored == null) return [];
  const parsed = JSON.parse(typeof stored === 'string' ? stored : decoder.decode(stored)) as (PackedItem | TextItem)[];
  if (!parsed.length || !Array.isArray(parsed[0])) return parsed as TextItem[];
  return (parsed as PackedItem[]).map(([str, x, y, w, h, flags, fontHeight, edges, asc, desc]) => {
    const it: TextItem = { str, x, y, w, h, fontHeight: fontHeight ?? h };
    if (flags & EOL) it.eol = true;
    if (flags & MONO) it.mono = true;
    if (flags & RTL) it.rtl = true;
    if ((flags >> ROT_SHIFT) & 3) it.rot = (((flags >> ROT_SHIFT) & 3) * 90) as 90 | 180 | 270;
    if (edges) it.gx = unpackEdges(edges);
    if (asc !== undefined && desc !== undefined) [it.asc, it.desc] = [asc, desc];
    return it;
  });
}
