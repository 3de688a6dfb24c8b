import { mkdir, open, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';

let tmpSeq = 0;

/**
 * Writes `data` to `file` so a crash leaves either the old file or the whole
 * new one: temp name, fsync, rename, fsync of the directory. Asynchronous, so
 * the fsyncs do not hold the thread that serves HTTP.
 */
export async function writeFileDurably(file: string, data: Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${++tmpSeq}.tmp`;
  try {
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  await syncDir(dir);
}

/** Makes renames and removals in `dir` durable (best effort: some filesystems refuse). */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // the rename is still atomic
  }
}
