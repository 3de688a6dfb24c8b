import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { inflateSync } from 'fflate';
import { BridgeError, invalidInput } from '../../../errors';

/**
 * Reads the entries of a zip (an .apkg) from a file one at a time, so memory
 * holds at most one inflated entry. Every size is checked against the
 * limits before inflating (the central directory's declared size), and the
 * inflated bytes are checked against that declared size and the entry's CRC:
 * a zip bomb or a lying header is refused, never followed.
 */

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc: number;
  localOffset: number;
}

export interface ZipLimits {
  /** Largest inflated size of any one entry. */
  entryBytes: number;
  /** Largest sum of the inflated sizes of the entries read. */
  totalBytes: number;
}

export const apkgDamaged = (why: string) =>
  invalidInput(`The file is not a readable Anki package: ${why}. Nothing was stored.`, { reason: why }, 'APKG_DAMAGED');

export const apkgTooLarge = (why: string, limitBytes: number) =>
  new BridgeError(
    'APKG_TOO_LARGE',
    413,
    `The Anki package inflates beyond what the bridge reads safely: ${why}. Nothing was stored.`,
    { limitBytes },
  );

const EOCD_SIG = 0x06054b50;
const CDH_SIG = 0x02014b50;
const LFH_SIG = 0x04034b50;
const MAX_COMMENT = 0xffff;

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
    const local = Buffer.alloc(30);
    await this.fh.read(local, 0, 30, e.localOffset);
    if (local.readUInt32LE(0) !== LFH_SIG) throw apkgDamaged(`entry "${name}" has no local header`);
    const start = e.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const packed = Buffer.alloc(e.compressedSize);
    const { bytesRead } = await this.fh.read(packed, 0, e.compressedSize, start);
    if (bytesRead !== e.compressedSize) throw apkgDamaged(`entry "${name}" is cut short`);
    let out: Uint8Array;
    if (e.method === 0) out = packed;
    else if (e.method === 8) {
      // The output buffer is exactly the declared size: a stream that inflates further is cut there, and the CRC check below refuses it.
      try {
        out = inflateSync(packed, { out: new Uint8Array(e.size) });
      } catch (err) {
        throw apkgDamaged(`entry "${name}" does not inflate (${(err as Error).message})`);
      }
    } else throw apkgDamaged(`entry "${name}" uses compression method ${e.method}`);
    if (out.length !== e.size || crc32(out) >>> 0 !== e.crc)
      throw apkgDamaged(`entry "${name}" does not match its declared size and checksum`);
    return out;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

async function readDirectory(fh: FileHandle): Promise<Map<string, ZipEntry>> {
  const { size } = await fh.stat();
  if (size < 22) throw apkgDamaged('it is too short to be a zip');
  const tailLen = Math.min(size, 22 + MAX_COMMENT);
  const tail = Buffer.alloc(tailLen);
  await fh.read(tail, 0, tailLen, size - tailLen);
  let eocd = -1;
  for (let i = tailLen - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw apkgDamaged('it is not a zip (no end of central directory)');
  const count = tail.readUInt16LE(eocd + 10);
  const dirSize = tail.readUInt32LE(eocd + 12);
  const dirOffset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || dirOffset === 0xffffffff) throw apkgDamaged('zip64 archives are not read');
  if (dirOffset + dirSize > size) throw apkgDamaged('its central directory lies outside the file');
  const dir = Buffer.alloc(dirSize);
  await fh.read(dir, 0, dirSize, dirOffset);
  const entries = new Map<string, ZipEntry>();
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CDH_SIG) throw apkgDamaged('its central directory is damaged');
    const nameLen = dir.readUInt16LE(p + 28);
    const extraLen = dir.readUInt16LE(p + 30);
    const commentLen = dir.readUInt16LE(p + 32);
    const entry: ZipEntry = {
      method: dir.readUInt16LE(p + 10),
      crc: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      size: dir.readUInt32LE(p + 24),
      localOffset: dir.readUInt32LE(p + 42),
      name: dir.toString('utf8', p + 46, p + 46 + nameLen),
    };
    if (entry.localOffset + 30 + entry.compressedSize > size)
      throw apkgDamaged(`entry "${entry.name}" lies outside the file`);
    entries.set(entry.name, entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}
