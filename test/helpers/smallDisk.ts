import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** A real small tmpfs: the disk of a full-disk test. `mount` needs root (CI runs as root). */
export interface SmallDisk {
  dir: string;
  /** Fills it to the last byte with a filler file. */
  fill(): void;
  /** Deletes the filler: space is back. */
  free(): void;
  freeBytes(): number;
  unmount(): void;
}

/** Mounts a tmpfs of `mb` MB, or answers why it cannot (not root, no mount in a container...). */
export function mountSmallDisk(mb: number): SmallDisk | { refused: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m,mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return { refused: String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim() };
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Big writes first, then small ones, until not one byte more fits.
        for (const size of [1 << 20, 1 << 16, 4096, 512, 1]) {
          const b = Buffer.alloc(size, 1);
          try {
            for (;;) writeSync(fd, b);
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    freeBytes() {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    },
    unmount() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every file below `dir` (relative paths, sorted); folders only through their files. */
export function filesBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}
