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

/** One item as [str, x, y, w, h, flags, fontHeight?]: fontHeight only when it differs from h. */
type PackedItem = [string, number, number, number, number, number, number?];

/** Items as a BLOB: UTF-8 JSON of packed arrays (about half the bytes of the objects). */
export function encodeItems(items: TextItem[]): Uint8Array {
  const packed: PackedItem[] = new Array<PackedItem>(items.length);
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const flags = (it.eol ? EOL : 0) | (it.mono ? MONO : 0);
    packed[i] =
      it.fontHeight === it.h
        ? [it.str, it.x, it.y, it.w, it.h, flags]
        : [it.str, it.x, it.y, it.w, it.h, flags, it.fontHeight];
  }
  return encoder.encode(JSON.stringify(packed));
}

/** Items from a stored value: a packed BLOB, or JSON text of item objects (older rows). */
export function decodeItems(stored: string | Uint8Array | null | undefined): TextItem[] {
  if (stored == null) return [];
  const parsed = JSON.parse(typeof stored === 'string' ? stored : decoder.decode(stored)) as (PackedItem | TextItem)[];
  if (!parsed.length || !Array.isArray(parsed[0])) return parsed as TextItem[];
  return (parsed as PackedItem[]).map(([str, x, y, w, h, flags, fontHeight]) => {
    const it: TextItem = { str, x, y, w, h, fontHeight: fontHeight ?? h };
    if (flags & EOL) it.eol = true;
    if (flags & MONO) it.mono = true;
    return it;
  });
}
