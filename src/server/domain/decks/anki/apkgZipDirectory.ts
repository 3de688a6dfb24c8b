import type { FileHandle } from 'node:fs/promises';
import { apkgDamaged, type ZipEntry } from './apkgZipErrors';

/**
 * A zip's central directory, ZIP64 included: Anki writes ZIP64 records for
 * large collections, and `zip -fz` or any streaming writer may write them for
 * small ones. A field that reads 0xffff/0xffffffff takes its value from the
 * ZIP64 end record or the entry's ZIP64 extra field.
 */

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CDH_SIG = 0x02014b50;
const ZIP64_EXTRA = 0x0001;
const MAX_COMMENT = 0xffff;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

interface DirectoryPlace {
  count: number;
  size: number;
  offset: number;
}

/** An 8-byte field as a number; a value past 2^53 is no file this reader meets → damaged. */
function u64(buf: Buffer, at: number, what: string): number {
  const v = buf.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw apkgDamaged(`its ${what} is out of range`);
  return Number(v);
}

/** Where the central directory lies: from the end record, or its ZIP64 record when the end record defers to it. */
async function directoryPlace(fh: FileHandle, size: number): Promise<DirectoryPlace> {
  if (size < 22) throw apkgDamaged('it is too short to be a zip');
  const tailLen = Math.min(size, 22 + MAX_COMMENT + 20);
  const tail = Buffer.alloc(tailLen);
  await fh.read(tail, 0, tailLen, size - tailLen);
  let eocd = -1;
  for (let i = tailLen - 22; i >= 0; i--)
    if (tail.readUInt32LE(i) === EOCD_SIG) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw apkgDamaged('it is not a zip (no end of central directory)');
  const place = {
    count: tail.readUInt16LE(eocd + 10),
    size: tail.readUInt32LE(eocd + 12),
    offset: tail.readUInt32LE(eocd + 16),
  };
  const deferred = place.count === U16_MAX || place.size === U32_MAX || place.offset === U32_MAX;
  const hasLocator = eocd >= 20 && tail.readUInt32LE(eocd - 20) === ZIP64_LOCATOR_SIG;
  if (!hasLocator) {
    if (deferred) throw apkgDamaged('it defers to a ZIP64 end record it does not hold');
    return place;
  }
  const recordAt = u64(tail, eocd - 20 + 8, 'ZIP64 end record offset');
  if (recordAt + 56 > size) throw apkgDamaged('its ZIP64 end record lies outside the file');
  const record = Buffer.alloc(56);
  await fh.read(record, 0, 56, recordAt);
  if (record.readUInt32LE(0) !== ZIP64_EOCD_SIG) throw apkgDamaged('its ZIP64 end record is damaged');
  return {
    count: u64(record, 32, 'entry count'),
    size: u64(record, 40, 'central directory size'),
    offset: u64(record, 48, 'central directory offset'),
  };
}

/** An entry's ZIP64 extra field fills, in order, the fields its record marks 0xffffffff. */
function applyZip64Extra(entry: ZipEntry, extra: Buffer): void {
  const wants = (['size', 'compressedSize', 'localOffset'] as const).filter((k) => entry[k] === U32_MAX);
  if (!wants.length) return;
  for (let p = 0; p + 4 <= extra.length;) {
    const id = extra.readUInt16LE(p);
    const len = extra.readUInt16LE(p + 2);
    if (id === ZIP64_EXTRA) {
      if (len < wants.length * 8 || p + 4 + len > extra.length)
        throw apkgDamaged(`entry "${entry.name}" has a short ZIP64 field`);
      wants.forEach((k, i) => (entry[k] = u64(extra, p + 4 + i * 8, `entry "${entry.name}" size`)));
      return;
    }
    p += 4 + len;
  }
  throw apkgDamaged(`entry "${entry.name}" lacks the ZIP64 field its sizes defer to`);
}

/** Reads the central directory: entry name → where its bytes lie and what it declares. */
export async function readDirectory(fh: FileHandle): Promise<Map<string, ZipEntry>> {
  const { size } = await fh.stat();
  const place = await directoryPlace(fh, size);
  if (place.offset + place.size > size) throw apkgDamaged('its central directory lies outside the file');
  // Each record takes at least 46 bytes: a count the directory cannot hold is a lie, never a loop bound.
  if (place.count * 46 > place.size) throw apkgDamaged('its central directory is shorter than its entry count');
  const dir = Buffer.alloc(place.size);
  await fh.read(dir, 0, place.size, place.offset);
  const entries = new Map<string, ZipEntry>();
  let p = 0;
  for (let i = 0; i < place.count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CDH_SIG) throw apkgDamaged('its central directory is damaged');
    const nameLen = dir.readUInt16LE(p + 28);
    const extraLen = dir.readUInt16LE(p + 30);
    const commentLen = dir.readUInt16LE(p + 32);
    if (p + 46 + nameLen + extraLen > dir.length) throw apkgDamaged('its central directory is damaged');
    const entry: ZipEntry = {
      method: dir.readUInt16LE(p + 10),
      crc: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      size: dir.readUInt32LE(p + 24),
      localOffset: dir.readUInt32LE(p + 42),
      name: dir.toString('utf8', p + 46, p + 46 + nameLen),
    };
    applyZip64Extra(entry, dir.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen));
    if (entry.localOffset + 30 + entry.compressedSize > size)
      throw apkgDamaged(`entry "${entry.name}" lies outside the file`);
    entries.set(entry.name, entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}
