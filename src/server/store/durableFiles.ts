import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Writes a whole file and fsyncs it before returning. */
export function writeDurably(path: string, data: Uint8Array): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The same on libuv's thread pool: the event loop stays free while a large file is written. */
export async function writeDurablyAsync(path: string, data: Uint8Array): Promise<void> {
  const fh = await open(path, 'w', 0o600);
  try {
    let off = 0;
    while (off < data.length) off += (await fh.write(data, off, data.length - off)).bytesWritten;
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Makes a rename in `dir` durable. */
export function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  }
}
