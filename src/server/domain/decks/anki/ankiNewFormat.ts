import { Decompress } from 'fzstd';
import { apkgDamaged, apkgTooLarge } from './apkgZipErrors';
import { zstdBound } from './zstdFrames';

/**
 * The newer package format (collection.anki21b, Anki 2.1.50+): the
 * collection and every media file are zstd-compressed, and the media list is
 * a protobuf (MediaEntries { repeated MediaEntry entries = 1 }, MediaEntry
 * { string name = 1; uint32 size = 2; bytes sha1 = 3; uint32
 * legacy_zip_filename = 255 }). Decoded with fzstd, output and work bounded
 * first (zstdFrames.ts).
 */

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

export const isZstd = (b: Uint8Array) => b.length >= 4 && ZSTD_MAGIC.every((m, i) => b[i] === m);

/**
 * Decompresses zstd data, refusing (413) once the output passes `limit`
 * bytes or the size its frames declare. The frames are walked first
 * (zstdBound), then fed to the decoder in slices of bounded work (block
 * boundaries zstdBound chose) with a turn of the event loop between them,
 * so other requests are answered meanwhile.
 */
export async function unzstd(bytes: Uint8Array, limit: number, what: string): Promise<Uint8Array> {
  const { declared, cuts } = zstdBound(bytes, limit, what);
  const cap = Math.min(limit, declared ?? limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const d = new Decompress((chunk) => {
    size += chunk.length;
    if (size > cap)
      throw apkgTooLarge(
        declared !== undefined && declared < limit
          ? `${what} decompresses beyond the ${declared} bytes it declares`
          : `${what} decompresses to more than ${limit} bytes`,
        cap,
      );
    chunks.push(chunk);
  });
  try {
    let from = 0;
    for (const to of cuts) {
      d.push(bytes.subarray(from, to), to === bytes.length);
      from = to;
      await new Promise((r) => setImmediate(r));
    }
  } catch (e) {
    if ((e as { code?: string }).code === 'APKG_TOO_LARGE') throw e;
    throw apkgDamaged(`${what} is not valid zstd (${(e as Error).message})`);
  }
  if (declared !== undefined && size !== declared)
    throw apkgDamaged(`${what} decompresses to ${size} bytes, not the ${declared} it declares`);
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
