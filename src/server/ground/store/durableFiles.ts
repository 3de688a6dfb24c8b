import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FILE_MODE, mkdirPrivate, mkdirPrivateAsync, openPrivate } from './privateFiles';
import { renameReplacing, renameReplacingSync } from './renameReplacing';

/**
 * Durable files: what is acknowledged, or what a row points at, is on disk
 * before anyone is told so. A replacement goes through a temp name, fsync,
 * rename and an fsync of the folder, so a crash leaves the old file or the
 * whole new one, never a torn one. Files are 0600 and new folders 0700.
 *
 * Windows has no folder fsync (a folder cannot be opened for it): there the
 * file's fsync (FlushFileBuffers) and NTFS's own metadata journal make the
 * rename durable, and a rename over a file another process holds is retried
 * (renameReplacing.ts). docs/DURABILITY.md says what that promises.
 */

let tmpSeq = 0;
const tempName = (file: string) => `${file}.${process.pid}.${++tmpSeq}.tmp`;

/** Writes a whole file (0600) and fsyncs it before returning. */
export function writeDurably(path: string, data: Uint8Array): void {
  const fd = openPrivate(path, 'w');
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Replaces `file` atomically and durably (creating its folder). Synchronous: for use inside a store transaction. */
export function replaceDurably(file: string, data: Uint8Array): void {
  mkdirPrivate(dirname(file));
  const tmp = tempName(file);
  try {
    writeDurably(tmp, data);
    renameReplacingSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDir(dirname(file));
}

/** The same on libuv's thread pool: the event loop stays free while a large file is written and fsynced. */
export async function replaceDurablyAsync(file: string, data: Uint8Array): Promise<void> {
  const dir = dirname(file);
  await mkdirPrivateAsync(dir);
  const tmp = tempName(file);
  try {
    const fh = await open(tmp, 'w', FILE_MODE);
    try {
      // A stale temp file of a crashed process with the same pid keeps its mode on open.
      await fh.chmod(FILE_MODE).catch(() => undefined);
      let off = 0;
      while (off < data.length) off += (await fh.write(data, off, data.length - off)).bytesWritten;
      await fh.sync();
    } finally {
      await fh.close();
    }
    await renameReplacing(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  await fsyncDirAsync(dir);
}

/**
 * Codes by which a file system says it cannot fsync a folder (some network and
 * FUSE mounts; Windows cannot open one): the rename is still atomic there.
 * Any other failure (EIO…) means the rename may not survive a power cut, so
 * it is thrown and the write it belongs to is answered as failed.
 */
const FOLDER_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EPERM', 'EACCES']);

function unsupported(e: unknown): boolean {
  return FOLDER_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException)?.code ?? '');
}

/** Windows cannot flush a folder; NTFS journals the rename itself (see above). */
const NO_FOLDER_SYNC = process.platform === 'win32';

/** Makes a rename or removal in `dir` durable. */
export function fsyncDir(dir: string): void {
  if (NO_FOLDER_SYNC) return;
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (e) {
    if (unsupported(e)) return;
    throw e;
  }
  try {
    fsyncSync(fd);
  } catch (e) {
    if (!unsupported(e)) throw e;
  } finally {
    closeSync(fd);
  }
}

export async function fsyncDirAsync(dir: string): Promise<void> {
  if (NO_FOLDER_SYNC) return;
  let fh: import('node:fs/promises').FileHandle;
  try {
    fh = await open(dir, 'r');
  } catch (e) {
    if (unsupported(e)) return;
    throw e;
  }
  try {
    await fh.sync();
  } catch (e) {
    if (!unsupported(e)) throw e;
  } finally {
    await fh.close();
  }
}
