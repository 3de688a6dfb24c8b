import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

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
