import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDir } from './durableFiles';
import { asideName } from './recoveryReport';
import { renameReplacingSync } from './renameReplacing';

/**
 * The redo file of a page-wise checkpoint (see checkpointFile.ts). Applying
 * pages to the wrong library.db would put old pages over newer ones, so a
 * redo file names the exact state it applies to: the size of the file
 * before, a digest of every page it leaves alone, and a CRC per 512-byte
 * sector of each page it replaces. At open each sector it targets must hold
 * its pre- or its post-image (a crash, or a power cut tearing a page, can
 * leave any mix) and every other page must be as before. Anything else means
 * the redo belongs to another state (say, one copied back from a backup): it
 * is set aside, never applied.
 *
 * Layout: magic, u32 page size, u32 page count after, u32 changed pages, f64
 * size before, u32 digest; per changed page: u32 index, u32 CRC per sector
 * of its pre-image, the page; then a CRC32 of everything before it.
 */

const MAGIC = Buffer.from('SBREDO02');
/** Redo files of the previous build: no base state, applied as that build would. */
const MAGIC_V1 = Buffer.from('SBREDO01');
const HEAD = MAGIC.length + 24;
const HEAD_V1 = MAGIC.length + 12;
const SECTOR = 512;

/** What library.db held when the redo file was made. */
export interface PreImage {
  size: number;
  /** CRC32 of each page (the last one clipped at `size`). */
  pageCrcs: Uint32Array;
  /** CRC32 of each sector of page i, clipped at `size` (so past the end each is crc32 of nothing, 0). */
  sectorCrcs(i: number): Uint32Array;
}

export function sectorCrcsOf(bytes: Uint8Array, at: number, pageSize: number): Uint32Array {
  const out = new Uint32Array(pageSize / SECTOR);
  for (let s = 0; s < out.length; s++)
    out[s] =
      crc32(bytes.subarray(Math.min(bytes.length, at + s * SECTOR), Math.min(bytes.length, at + (s + 1) * SECTOR))) >>>
      0;
  return out;
}

export function preImageOf(bytes: Uint8Array, pageSize: number): PreImage {
  const pages = Math.ceil(bytes.length / pageSize);
  const pageCrcs = new Uint32Array(pages);
  for (let i = 0; i < pages; i++)
    pageCrcs[i] = crc32(bytes.subarray(i * pageSize, Math.min(bytes.length, (i + 1) * pageSize))) >>> 0;
  return { size: bytes.length, pageCrcs, sectorCrcs: (i) => sectorCrcsOf(bytes, i * pageSize, pageSize) };
}

/** Digest of the pages a redo file leaves alone (those below both page counts). */
function untouchedDigest(
  pageCrc: (i: number) => number,
  oldPages: number,
  newPages: number,
  changed: Set<number>,
): number {
  const crcs: number[] = [];
  for (let i = 0; i < Math.min(oldPages, newPages); i++) if (!changed.has(i)) crcs.push(pageCrc(i));
  return crc32(Buffer.from(Uint32Array.from(crcs).buffer)) >>> 0;
}

export function encodeRedo(data: Uint8Array, pageSize: number, changed: number[], pre: PreImage): Buffer {
  const pageCount = Math.ceil(data.length / pageSize);
  const spp = pageSize / SECTOR;
  const out = Buffer.alloc(HEAD + changed.length * (4 + spp * 4 + pageSize) + 4);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(pageSize, 8);
  out.writeUInt32LE(pageCount, 12);
  out.writeUInt32LE(changed.length, 16);
  out.writeDoubleLE(pre.size, 20);
  out.writeUInt32LE(
    untouchedDigest((i) => pre.pageCrcs[i], pre.pageCrcs.length, pageCount, new Set(changed)),
    28,
  );
  let at = HEAD;
  for (const i of changed) {
    out.writeUInt32LE(i, at);
    Buffer.from(pre.sectorCrcs(i).buffer).copy(out, at + 4);
    out.set(data.subarray(i * pageSize, (i + 1) * pageSize), at + 4 + spp * 4);
    at += 4 + spp * 4 + pageSize;
  }
  out.writeUInt32LE(crc32(out.subarray(0, at)) >>> 0, at);
  return out;
}

interface ParsedRedo {
  pageSize: number;
  pageCount: number;
  pages: Array<{ index: number; page: Buffer; pre?: Uint32Array }>;
  base?: { size: number; digest: number };
}

function parse(redo: Buffer): ParsedRedo | undefined {
  const v2 = redo.subarray(0, 8).equals(MAGIC);
  if (!v2 && !redo.subarray(0, 8).equals(MAGIC_V1)) return undefined;
  if (
    redo.length < (v2 ? HEAD : HEAD_V1) + 4 ||
    crc32(redo.subarray(0, redo.length - 4)) >>> 0 !== redo.readUInt32LE(redo.length - 4)
  )
    return undefined;
  const pageSize = redo.readUInt32LE(8);
  const count = redo.readUInt32LE(16);
  const spp = v2 ? pageSize / SECTOR : 0;
  const stride = 4 + spp * 4 + pageSize;
  const head = v2 ? HEAD : HEAD_V1;
  if (!Number.isInteger(spp) || head + count * stride + 4 !== redo.length) return undefined;
  const pages = Array.from({ length: count }, (_, k) => {
    const at = head + k * stride;
    const pre = v2 ? new Uint32Array(Uint8Array.from(redo.subarray(at + 4, at + 4 + spp * 4)).buffer) : undefined;
    return { index: redo.readUInt32LE(at), page: redo.subarray(at + 4 + spp * 4, at + stride), pre };
  });
  return {
    pageSize,
    pageCount: redo.readUInt32LE(12),
    pages,
    base: v2 ? { size: redo.readDoubleLE(20), digest: redo.readUInt32LE(28) } : undefined,
  };
}

/** Whether library.db (`cur`) is the redo's base state, its result, or any mix a crash during the apply leaves. */
function matches(cur: Buffer, r: ParsedRedo): boolean {
  if (!r.base) return true;
  const { size, digest } = r.base;
  const newSize = r.pageCount * r.pageSize;
  if (cur.length < Math.min(size, newSize) || cur.length > Math.max(size, newSize)) return false;
  const ps = r.pageSize;
  const pageCrc = (i: number) => crc32(cur.subarray(i * ps, Math.min(cur.length, (i + 1) * ps))) >>> 0;
  if (untouchedDigest(pageCrc, Math.ceil(size / ps), r.pageCount, new Set(r.pages.map((p) => p.index))) !== digest)
    return false;
  return r.pages.every(({ index, page, pre }) => {
    const now = sectorCrcsOf(cur, index * ps, ps);
    return pre!.every((crc, s) => {
      const at = index * ps + s * SECTOR;
      const sector = cur.subarray(Math.min(cur.length, at), Math.min(cur.length, at + SECTOR));
      const post = page.subarray(s * SECTOR, (s + 1) * SECTOR);
      // Pre-image, post-image (or the start of it, where the file ends mid-write), or zeros the file grew by.
      return (
        now[s] === crc || post.subarray(0, sector.length).equals(sector) || (at >= size && sector.every((b) => b === 0))
      );
    });
  });
}

/**
 * Finishes or discards a checkpoint a crash interrupted: a complete redo file
 * that matches library.db is applied (again: applying twice is harmless); an
 * incomplete one is dropped (library.db was not touched yet); a complete one
 * that does not match is set aside and its name returned.
 */
export function settleRedo(path: string, redoPath: string): { staleKeptAs?: string } {
  if (!existsSync(redoPath)) return {};
  const redo = parse(readFileSync(redoPath));
  if (redo && existsSync(path)) {
    if (!matches(readFileSync(path), redo)) {
      const aside = asideName(redoPath, 'stale');
      renameReplacingSync(redoPath, aside);
      fsyncDir(dirname(path));
      return { staleKeptAs: aside };
    }
    const fd = openSync(path, 'r+');
    try {
      for (const p of redo.pages) writeSync(fd, p.page, 0, p.page.length, p.index * redo.pageSize);
      ftruncateSync(fd, redo.pageCount * redo.pageSize);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  rmSync(redoPath, { force: true });
  fsyncDir(dirname(path));
  return {};
}
