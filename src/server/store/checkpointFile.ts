import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDir, fsyncDirAsync, replaceDurablyAsync } from './durableFiles';

/**
 * library.db on disk. A checkpoint exports the whole database (sql.js has no
 * other way out), but most of its pages are what the file already holds: at
 * 100k cards a checkpoint after a few edits changes a few dozen of ~30k
 * pages. So only changed pages are written, through a redo file: the changed
 * pages go to `library.db.redo` (durable, checksummed) first, then into
 * library.db in place. A crash before the redo file is complete leaves
 * library.db untouched; a crash after it is repaired by applying the redo
 * file again on the next open. Pages are told apart by a CRC32 per page of
 * what the file holds, computed in slices between requests.
 */

const MAGIC = Buffer.from('SBREDO01');
/** magic, page size, page count of the new file, changed pages */
const HEAD = MAGIC.length + 12;
/** Above this share of changed pages the whole file is written instead. */
const WHOLE_FILE_SHARE = 0.5;
/** Bytes checksummed per turn of the event loop (a few ms). */
const SLICE_BYTES = 8 * 1024 * 1024;

export interface CheckpointWrite {
  mode: 'whole' | 'pages';
  pages: number;
  changedPages: number;
}

/** SQLite's page size, from the database header (offset 16, big-endian; 1 means 65536). */
function pageSizeOf(data: Uint8Array): number {
  if (data.length < 100) return 4096;
  const v = (data[16] << 8) | data[17];
  return v === 1 ? 65536 : v || 4096;
}

function crcsInto(into: Uint32Array, data: Uint8Array, pageSize: number, from: number, to: number): void {
  for (let i = from; i < to; i++) into[i] = crc32(data.subarray(i * pageSize, Math.min(data.length, (i + 1) * pageSize))) >>> 0;
}

/** CRC32 of each page, yielding between slices so requests are served meanwhile. */
async function crcsOfInSlices(data: Uint8Array, pageSize: number): Promise<Uint32Array> {
  const pages = Math.ceil(data.length / pageSize);
  const out = new Uint32Array(pages);
  const per = Math.max(1, Math.floor(SLICE_BYTES / pageSize));
  for (let at = 0; at < pages; at += per) {
    crcsInto(out, data, pageSize, at, Math.min(pages, at + per));
    await new Promise((r) => setImmediate(r));
  }
  return out;
}

export class CheckpointFile {
  private constructor(
    readonly path: string,
    /** CRC32 of each page library.db holds now (computed in slices after open); undefined: no file yet or unknown. */
    private crcs: Promise<Uint32Array | undefined>,
    private pageSize: number,
  ) {}

  private get redoPath(): string {
    return `${this.path}.redo`;
  }

  /** Opens library.db (finishing an interrupted checkpoint first) and returns its bytes, if any. */
  static open(path: string): { file: CheckpointFile; bytes: Buffer | undefined } {
    applyRedo(path, `${path}.redo`);
    if (!existsSync(path)) return { file: new CheckpointFile(path, Promise.resolve(undefined), 4096), bytes: undefined };
    const bytes = readFileSync(path);
    const pageSize = pageSizeOf(bytes);
    // Not needed before the first checkpoint: computed between requests, so start-up does not wait for it.
    return { file: new CheckpointFile(path, crcsOfInSlices(bytes, pageSize), pageSize), bytes };
  }

  /** Makes library.db hold `data` durably, writing only the pages that differ from what it holds. */
  async write(data: Uint8Array): Promise<CheckpointWrite> {
    const pageSize = pageSizeOf(data);
    const crcs = await crcsOfInSlices(data, pageSize);
    const old = await this.crcs;
    const changed: number[] = [];
    if (old && pageSize === this.pageSize) for (let i = 0; i < crcs.length; i++) if (i >= old.length || old[i] !== crcs[i]) changed.push(i);
    // SQLite files are whole pages; anything else is written whole.
    const whole = !old || pageSize !== this.pageSize || data.length % pageSize !== 0 || changed.length > crcs.length * WHOLE_FILE_SHARE;
    if (whole) {
      // A redo file left by a failed apply must not outlive this write: applied later, it would put older pages back.
      applyRedo(this.path, this.redoPath);
      await replaceDurablyAsync(this.path, data);
      this.setState(crcs, pageSize);
      return { mode: 'whole', pages: crcs.length, changedPages: crcs.length };
    }
    // Until the redo file is complete, library.db is untouched.
    await replaceDurablyAsync(this.redoPath, encodeRedo(data, pageSize, crcs.length, changed));
    // From here on a crash is repaired from the redo file; the state is unknown until the apply ends.
    this.crcs = Promise.resolve(undefined);
    const fh = await open(this.path, 'r+');
    try {
      for (const i of changed) await fh.write(data, i * pageSize, pageSize, i * pageSize);
      await fh.truncate(data.length);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rm(this.redoPath, { force: true });
    await fsyncDirAsync(dirname(this.path));
    this.setState(crcs, pageSize);
    return { mode: 'pages', pages: crcs.length, changedPages: changed.length };
  }

  private setState(crcs: Uint32Array, pageSize: number): void {
    this.crcs = Promise.resolve(crcs);
    this.pageSize = pageSize;
  }
}

/** Redo file: head, then (u32 page index, page bytes) per changed page, then a CRC32 of all before it. */
export function encodeRedo(data: Uint8Array, pageSize: number, pageCount: number, changed: number[]): Buffer {
  const out = Buffer.alloc(HEAD + changed.length * (4 + pageSize) + 4);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(pageSize, MAGIC.length);
  out.writeUInt32LE(pageCount, MAGIC.length + 4);
  out.writeUInt32LE(changed.length, MAGIC.length + 8);
  let at = HEAD;
  for (const i of changed) {
    out.writeUInt32LE(i, at);
    out.set(data.subarray(i * pageSize, (i + 1) * pageSize), at + 4);
    at += 4 + pageSize;
  }
  out.writeUInt32LE(crc32(out.subarray(0, at)) >>> 0, at);
  return out;
}

/** Applies a complete redo file to library.db (again: applying twice is harmless); an incomplete one is dropped. */
function applyRedo(path: string, redoPath: string): void {
  if (!existsSync(redoPath)) return;
  const redo = readFileSync(redoPath);
  const complete =
    redo.length >= HEAD + 4 &&
    redo.subarray(0, MAGIC.length).equals(MAGIC) &&
    (crc32(redo.subarray(0, redo.length - 4)) >>> 0) === redo.readUInt32LE(redo.length - 4) &&
    existsSync(path);
  if (complete) {
    const pageSize = redo.readUInt32LE(MAGIC.length);
    const pageCount = redo.readUInt32LE(MAGIC.length + 4);
    const count = redo.readUInt32LE(MAGIC.length + 8);
    const fd = openSync(path, 'r+');
    try {
      for (let k = 0, at = HEAD; k < count; k++, at += 4 + pageSize) writeSync(fd, redo, at + 4, pageSize, redo.readUInt32LE(at) * pageSize);
      ftruncateSync(fd, pageCount * pageSize);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  rmSync(redoPath, { force: true });
  fsyncDir(dirname(path));
}
