import { closeSync, fchmodSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';

/**
 * Everything the bridge writes is its owner's alone: files 0600, folders
 * 0700. The mode given to open/mkdir only applies when the file or folder is
 * created and only loses bits to the umask, so new files are private
 * whatever the umask; files left by older builds are tightened at start
 * (security/privateDataDir.ts).
 */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** mkdir -p whose new folders are 0700. */
export function mkdirPrivate(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
}

export async function mkdirPrivateAsync(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
}

/**
 * Opens a file for writing as 0600, also when it already existed with a
 * looser mode (fchmod before the first byte is written). File systems that
 * keep no modes refuse or ignore the fchmod: the write goes on.
 */
export function openPrivate(path: string, flags: string): number {
  const fd = openSync(path, flags, FILE_MODE);
  try {
    fchmodSync(fd, FILE_MODE);
  } catch {
    /* no modes here; start-up already warned */
  }
  return fd;
}

/** Writes a small file (not durably) as 0600. */
export function writePrivateFile(path: string, content: string | Uint8Array): void {
  const fd = openPrivate(path, 'w');
  try {
    const data = typeof content === 'string' ? Buffer.from(content) : content;
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
  } finally {
    closeSync(fd);
  }
}
