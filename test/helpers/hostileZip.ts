import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { unzipSync } from 'fflate';

/**
 * Zips written by hand, to say what a writer may say: an entry whose
 * headers declare one size while its deflate stream inflates to another,
 * and ZIP64 records (0xffffffff in the central directory, the sizes and
 * offsets in ZIP64 extra fields, a ZIP64 end record and its locator), as
 * Anki's writer produces for large collections.
 */

export interface RawEntry {
  name: string;
  /** The stored bytes: deflate-raw data (method 8) or the file itself (method 0). */
  packed: Buffer;
  method: 0 | 8;
  /** The inflated size the headers declare. */
  size: number;
  crc: number;
}

/** A deflated entry of `data`, honest about its size and CRC. */
export const deflated = (name: string, data: Uint8Array): RawEntry => ({
  name,
  packed: deflateRawSync(data),
  method: 8,
  size: data.length,
  crc: crc32(data) >>> 0,
});

/** Every entry of `zip`, deflated again, honest. */
export const entriesOf = (zip: Uint8Array): RawEntry[] =>
  Object.entries(unzipSync(zip)).map(([name, data]) => deflated(name, data));

/** Deflate-raw data of `inflated` zero bytes, from one reused buffer (the test never holds the inflated size). */
export async function zeroBomb(inflated: number): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => deflate.on('end', r));
  const zeros = Buffer.alloc(16 * 1024 * 1024);
  for (let left = inflated; left > 0; left -= zeros.length) {
    if (!deflate.write(left >= zeros.length ? zeros : zeros.subarray(0, left)))
      await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return Buffer.concat(out);
}

const u16 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

/** A zip of `entries`; with `zip64`, every size, offset and count of the central directory defers to ZIP64 records. */
export function writeZip(entries: RawEntry[], opts: { zip64?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const FF = 0xffffffff;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const head = [u16(opts.zip64 ? 45 : 20), u16(0), u16(e.method), u16(0), u16(0x21), u32(e.crc)];
    const local = Buffer.concat([
      u32(0x04034b50),
      ...head,
      u32(e.packed.length),
      u32(e.size),
      u16(name.length),
      u16(0),
      name,
    ]);
    const extra = opts.zip64
      ? Buffer.concat([u16(1), u16(24), u64(e.size), u64(e.packed.length), u64(offset)])
      : Buffer.alloc(0);
    central.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(opts.zip64 ? 45 : 20),
        ...head,
        u32(opts.zip64 ? FF : e.packed.length),
        u32(opts.zip64 ? FF : e.size),
        u16(name.length),
        u16(extra.length),
        u16(0),
        u16(0),
        u16(0),
        u32(0),
        u32(opts.zip64 ? FF : offset),
        name,
        extra,
      ]),
    );
    parts.push(local, e.packed);
    offset += local.length + e.packed.length;
  }
  const dir = Buffer.concat(central);
  const tail: Buffer[] = [];
  if (opts.zip64) {
    const n = u64(entries.length);
    tail.push(
      Buffer.concat([u32(0x06064b50), u64(44), u16(45), u16(45), u32(0), u32(0), n, n, u64(dir.length), u64(offset)]),
      Buffer.concat([u32(0x07064b50), u32(0), u64(offset + dir.length), u32(1)]),
    );
  }
  const count = opts.zip64 ? 0xffff : entries.length;
  tail.push(
    Buffer.concat([
      u32(0x06054b50),
      u16(0),
      u16(0),
      u16(count),
      u16(count),
      u32(opts.zip64 ? FF : dir.length),
      u32(opts.zip64 ? FF : offset),
      u16(0),
    ]),
  );
  return Buffer.concat([...parts, dir, ...tail]);
}

/** A zstd frame of RLE blocks: `blocks` × 128 KiB of zeros; `fcs` declared when given (single segment), else `windowLog`. */
export function zstdRleBomb(blocks: number, opts: { fcs?: number; windowLog?: number }): Buffer {
  const header =
    opts.fcs !== undefined
      ? Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xa0]), u32(opts.fcs)]) // single segment, 4-byte size
      : Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, ((opts.windowLog ?? 17) - 10) << 3]);
  const block = (last: number) => {
    const h = ((128 * 1024) << 3) | (1 << 1) | last; // type 1: RLE
    return Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 0]);
  };
  const body = Buffer.alloc(blocks * 4);
  for (let i = 0; i < blocks; i++) block(i === blocks - 1 ? 1 : 0).copy(body, i * 4);
  return Buffer.concat([header, body]);
}
