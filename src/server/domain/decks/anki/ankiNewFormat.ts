import { Decompress } from 'fzstd';
import { apkgDamaged, apkgTooLarge } from './apkgZip';

/**
 * The newer package format (collection.anki21b, Anki 2.1.50+): the
 * collection and every media file are zstd-compressed, and the media list is
 * a protobuf (MediaEntries { repeated MediaEntry entries = 1 }, MediaEntry
 * { string name = 1; uint32 size = 2; bytes sha1 = 3; uint32
 * legacy_zip_filename = 255 }). Decoded with fzstd, output bounded by `limit`.
 */

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

export const isZstd = (b: Uint8Array) => b.length >= 4 && ZSTD_MAGIC.every((m, i) => b[i] === m);

/** Decompresses a zstd frame, refusing (413) once the output passes `limit` bytes. */
export function unzstd(bytes: Uint8Array, limit: number, what: string): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const d = new Decompress((chunk) => {
    size += chunk.length;
    if (size > limit) throw apkgTooLarge(`${what} decompresses to more than ${limit} bytes`, limit);
    chunks.push(chunk);
  });
  try {
    // Pushed in slices so the limit is checked as the output grows, not after it all exists.
    const step = 1 << 20;
    for (let i = 0; i < bytes.length; i += step)
      d.push(bytes.subarray(i, Math.min(bytes.length, i + step)), i + step >= bytes.length);
  } catch (e) {
    if ((e as { code?: string }).code === 'APKG_TOO_LARGE') throw e;
    throw apkgDamaged(`${what} is not valid zstd (${(e as Error).message})`);
  }
  const out = new Uint8Array(size);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** Protobuf fields of one message: field number → values (varints as numbers, length-delimited as bytes). */
export function protoFields(buf: Uint8Array): Map<number, Array<number | Uint8Array>> {
  const out = new Map<number, Array<number | Uint8Array>>();
  let p = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (p >= buf.length) throw apkgDamaged('a protobuf message is cut short');
      const b = buf[p++];
      v += (b & 0x7f) * mul;
      if (!(b & 0x80)) return v;
      mul *= 128;
    }
  };
  while (p < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    let value: number | Uint8Array;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      if (p + len > buf.length) throw apkgDamaged('a protobuf field runs past its message');
      value = buf.subarray(p, p + len);
      p += len;
    } else if (wire === 5) {
      value = p + 4 <= buf.length ? new DataView(buf.buffer, buf.byteOffset + p, 4).getUint32(0, true) : 0;
      p += 4;
    } else if (wire === 1) {
      p += 8;
      continue;
    } else throw apkgDamaged(`a protobuf field has wire type ${wire}`);
    const list = out.get(field);
    if (list) list.push(value);
    else out.set(field, [value]);
  }
  return out;
}

/** The media list of a newer package: file name → zip entry name. */
export function mediaEntries(list: Uint8Array): Map<string, string> {
  const map = new Map<string, string>();
  const entries = protoFields(list).get(1) ?? [];
  entries.forEach((e, i) => {
    if (!(e instanceof Uint8Array)) return;
    const f = protoFields(e);
    const name = f.get(1)?.[0];
    const legacy = f.get(255)?.[0];
    if (name instanceof Uint8Array)
      map.set(new TextDecoder().decode(name), String(typeof legacy === 'number' ? legacy : i));
  });
  return map;
}
