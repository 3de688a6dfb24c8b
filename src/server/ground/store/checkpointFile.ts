import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDirAsync, replaceDurablyAsync } from './durableFiles';
import { encodeRedo, sectorCrcsOf, settleRedo } from './redoFile';
import { heldByAnother } from './renameReplacing';

/**
 * library.db on disk. A checkpoint exports the whole database (sql.js has no
 * other way out), but most of its pages are what the file already holds: at
 * 100k cards a checkpoint after a few edits changes a few dozen of ~30k
 * pages. So only changed pages are written, through a redo file: the changed
 * pages go to `library.db.redo` (durable, checksummed) first, then into
 * library.db in place. A crash before the redo file is complete leaves
 * library.db untouched; a crash after it is repaired by applying the redo
 * file again on the next open, if it names the state library.db is in
 * (redoFile.ts). Pages are told apart by a CRC32 per page of what the file
 * holds, computed in slices between requests.
 */

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
  for (let i = from; i < to; i++)
    into[i] = crc32(data.subarray(i * pageSize, Math.min(data.length, (i + 1) * pageSize))) >>> 0;
}

/** CRC32 of each page, at once (an off-thread checkpoint computes them in its own thread). */
export function pageCrcs(data: Uint8Array): Uint32Array {
  const pageSize = pageSizeOf(data);
  const out = new Uint32Array(Math.ceil(data.length / pageSize));
  crcsInto(out, data, pageSize, 0, out.length);
  return out;
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

  /**
   * Opens library.db (finishing an interrupted checkpoint first) and returns
   * its bytes, if any, and where a redo file that did not match was set aside.
   */
  static open(path: string): { file: CheckpointFile; bytes: Buffer | undefined; staleRedoKeptAs?: string } {
    removeTempFiles(path);
    const { staleKeptAs } = settleRedo(path, `${path}.redo`);
    const stale = staleKeptAs === undefined ? {} : { staleRedoKeptAs: staleKeptAs };
    if (!existsSync(path))
      return { file: new CheckpointFile(path, Promise.resolve(undefined), 4096), bytes: undefined, ...stale };
    const bytes = readFileSync(path);
    const pageSize = pageSizeOf(bytes);
    // Not needed before the first checkpoint: computed between requests, so start-up does not wait for it.
    return { file: new CheckpointFile(path, crcsOfInSlices(bytes, pageSize), pageSize), bytes, ...stale };
  }

  /** Makes library.db hold `data` durably, writing only the pages that differ from what it holds. `known`: data's page CRCs, if computed already. */
  async write(data: Uint8Array, known?: Uint32Array): Promise<CheckpointWrite> {
    const pageSize = pageSizeOf(data);
    const crcs = known ?? (await crcsOfInSlices(data, pageSize));
    const old = await this.crcs;
    const changed: number[] = [];
    if (old && pageSize === this.pageSize)
      for (let i = 0; i < crcs.length; i++) if (i >= old.length || old[i] !== crcs[i]) changed.push(i);
    // SQLite files are whole pages; anything else is written whole.
    const whole =
      !old ||
      pageSize !== this.pageSize ||
      data.length % pageSize !== 0 ||
      changed.length > crcs.length * WHOLE_FILE_SHARE;
    if (whole) {
      // A redo file left by a failed apply must not outlive this write: applied later, it would put older pages back.
      settleRedo(this.path, this.redoPath);
      try {
        await replaceDurablyAsync(this.path, data);
        this.setState(crcs, pageSize);
        return { mode: 'whole', pages: crcs.length, changedPages: crcs.length };
      } catch (e) {
        // Windows refuses to rename over a file another process holds open (a backup, a viewer) even after
        // the retries; writing the pages in place through the redo file needs no rename, so it goes on that way.
        if (!(heldByAnother(e) && old && pageSize === this.pageSize && data.length % pageSize === 0)) throw e;
      }
    }
    const fh = await open(this.path, 'r+');
    try {
      // The redo file names the state it applies to: the size, and each target page's pre-image per sector.
      const size = (await fh.stat()).size;
      const pre = new Map<number, Uint32Array>();
      const page = Buffer.alloc(pageSize);
      for (const i of changed) {
        const { bytesRead } = i * pageSize < size ? await fh.read(page, 0, pageSize, i * pageSize) : { bytesRead: 0 };
        pre.set(i, sectorCrcsOf(page.subarray(0, bytesRead), 0, pageSize));
      }
      // Until the redo file is complete, library.db is untouched.
      await replaceDurablyAsync(
        this.redoPath,
        encodeRedo(data, pageSize, changed, { size, pageCrcs: old, sectorCrcs: (i) => pre.get(i)! }),
      );
      // From here on a crash is repaired from the redo file; the state is unknown until the apply ends.
      this.crcs = Promise.resolve(undefined);
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

  /** library.db exists and holds exactly what the last write (or the open) left: no apply failed halfway. */
  async isWhole(): Promise<boolean> {
    return (await this.crcs) !== undefined;
  }

  private setState(crcs: Uint32Array, pageSize: number): void {
    this.crcs = Promise.resolve(crcs);
    this.pageSize = pageSize;
  }
}

/** Temp files of a whole-file or redo write a crash interrupted (durableFiles.ts names them `<file>.<pid>.<n>.tmp`). */
function removeTempFiles(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) return;
  const name = basename(path);
  for (const f of readdirSync(dir)) {
    if (f.startsWith(`${name}.`) && /^(\.redo)?\.\d+\.\d+\.tmp$/.test(f.slice(name.length)))
      rmSync(join(dir, f), { force: true });
  }
}
