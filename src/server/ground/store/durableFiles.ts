import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FILE_MODE, mkdirPrivate, mkdirPrivateAsync, openPrivate } from './privateFiles';

/**
 * Durable files: what is acknowledged, or what a row points at, is on disk
 * before anyone is told so. A replacement goes through a temp name, fsync,
 * rename and an fsync of the folder, so a crash leaves the old file or the
 * whole new one, never a torn one. Files are 0600 and new folders 0700.
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
    renameSync(tmp, file);
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
    await rename(tmp, file);
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

/** Makes a rename or removal in `dir` durable. */
export function fsyncDir(dir: string): void {
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
