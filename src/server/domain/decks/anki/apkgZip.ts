import { open, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { crc32, createInflateRaw } from 'node:zlib';
import { apkgDamaged, apkgTooLarge, type ZipEntry, type ZipLimits } from './apkgZipErrors';
import { readDirectory } from './apkgZipDirectory';

export { apkgDamaged, apkgTooLarge, type ZipEntry, type ZipLimits } from './apkgZipErrors';

/**
 * Reads the entries of a zip (an .apkg) from a file one at a time, so memory
 * holds at most one inflated entry. Every declared size is checked against
 * the limits before inflating; the inflation itself is streamed off the
 * event loop (zlib's thread pool) and stopped as soon as the output passes
 * the declared size, so a lying header costs no more than an honest one.
 * The result is checked against the entry's CRC.
 */

const LFH_SIG = 0x04034b50;
const CHUNK = 64 * 1024;

export class ZipFile {
  private inflated = 0;

  private constructor(
    private readonly fh: FileHandle,
    readonly entries: ReadonlyMap<string, ZipEntry>,
    private readonly limits: ZipLimits,
  ) {}

  /** Opens `path` and reads its central directory; a file that is not a zip → 422 APKG_DAMAGED. */
  static async open(path: string, limits: ZipLimits): Promise<ZipFile> {
    const fh = await open(path, 'r');
    try {
      const entries = await readDirectory(fh);
      return new ZipFile(fh, entries, limits);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  /** The sum of the declared inflated sizes of `names` (to refuse before reading anything). */
  declaredSize(names: Iterable<string>): number {
    let n = 0;
    for (const name of names) n += this.entries.get(name)?.size ?? 0;
    return n;
  }

  /** One entry's bytes, inflated and checked; undefined when the zip has no such entry. */
  async read(name: string): Promise<Uint8Array | undefined> {
    const e = this.entries.get(name);
    if (!e) return undefined;
    if (e.size > this.limits.entryBytes)
      throw apkgTooLarge(
        `"${name}" declares ${e.size} bytes (limit ${this.limits.entryBytes})`,
        this.limits.entryBytes,
      );
    if (this.inflated + e.size > this.limits.totalBytes)
      throw apkgTooLarge(
        `its entries declare more than ${this.limits.totalBytes} bytes in all`,
        this.limits.totalBytes,
      );
    this.inflated += e.size;
    if (e.method !== 0 && e.method !== 8) throw apkgDamaged(`entry "${name}" uses compression method ${e.method}`);
    if (e.method === 0 && e.compressedSize !== e.size)
      throw apkgDamaged(`entry "${name}" is stored but declares two different sizes`);
    const local = Buffer.alloc(30);
    await this.fh.read(local, 0, 30, e.localOffset);
    if (local.readUInt32LE(0) !== LFH_SIG) throw apkgDamaged(`entry "${name}" has no local header`);
    const start = e.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    if (start + e.compressedSize > (await this.fh.stat()).size) throw apkgDamaged(`entry "${name}" is cut short`);
    const out = await inflateEntry(this.packed(start, e.compressedSize), e);
    if (crc32(out) >>> 0 !== e.crc) throw apkgDamaged(`entry "${name}" does not match its checksum`);
    return out;
  }

  /** The entry's stored bytes as a stream, read from the file in chunks (never held whole). */
  private packed(start: number, length: number): Readable {
    if (length === 0) return Readable.from([]);
    return this.fh.createReadStream({ start, end: start + length - 1, autoClose: false, highWaterMark: CHUNK });
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

/**
 * Inflates (or copies, method 0) an entry into a buffer of its declared size,
 * refusing with 413 once the output passes that size: the header's size is
 * the budget, whatever the deflate stream says.
 */
async function inflateEntry(packed: Readable, e: ZipEntry): Promise<Uint8Array> {
  const out = new Uint8Array(e.size);
  let n = 0;
  // Kept aside: stopping the pipeline makes it reject with its own AbortError, not with the reason.
  let refusal: Error | undefined;
  const collect = async (chunks: AsyncIterable<Buffer>) => {
    for await (const c of chunks) {
      if (n + c.length > out.length)
        throw (refusal = apkgTooLarge(`"${e.name}" inflates beyond the ${e.size} bytes it declares`, e.size));
      out.set(c, n);
      n += c.length;
    }
  };
  try {
    if (e.method === 0) await pipeline(packed, collect);
    else await pipeline(packed, createInflateRaw({ chunkSize: CHUNK }), collect);
  } catch (err) {
    if (refusal) throw refusal;
    throw apkgDamaged(`entry "${e.name}" does not inflate (${(err as Error).message})`);
  }
  if (n !== e.size) throw apkgDamaged(`entry "${e.name}" inflates to ${n} bytes, not the ${e.size} it declares`);
  return out;
}
