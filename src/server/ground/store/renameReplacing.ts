import { renameSync } from 'node:fs';
import { rename } from 'node:fs/promises';

/**
 * rename() that replaces its target, as POSIX does. On Windows a rename over
 * a file that another process holds open fails with EPERM, EACCES or EBUSY
 * (a backup tool, an antivirus scan or a viewer reading library.db for a
 * moment). Those holds are short, so the rename is tried again a few times
 * with a growing pause, about 1.3 s in all, before the failure is thrown; the
 * caller's write then fails as a whole and is retried later (a checkpoint) or
 * answered as failed. Elsewhere these codes mean a real permission problem:
 * thrown at once.
 */

const HELD_CODES = new Set(['EPERM', 'EACCES', 'EBUSY']);
/** Pauses between tries, ms: 10 · 2^k, 8 tries in all. */
export const RENAME_PAUSES_MS = [10, 20, 40, 80, 160, 320, 640];

export interface RenameRetryOptions {
  /** Whose rules apply (tests pass 'win32' to check the retry on any platform). */
  platform?: NodeJS.Platform;
  /** Called before each pause, for counting in tests and logs. */
  onRetry?: (code: string, attempt: number) => void;
}

/** A Windows refusal because another process holds the file (or a file inside the folder). */
export const heldByAnother = (e: unknown, platform: NodeJS.Platform = process.platform) =>
  platform === 'win32' && HELD_CODES.has((e as NodeJS.ErrnoException)?.code ?? '');

/** Blocks this thread for `ms` (only in a store transaction, where the caller is synchronous anyway). */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function renameReplacingSync(from: string, to: string, opts: RenameRetryOptions = {}): void {
  const platform = opts.platform ?? process.platform;
  for (let attempt = 0; ; attempt++) {
    try {
      return renameSync(from, to);
    } catch (e) {
      if (attempt >= RENAME_PAUSES_MS.length || !heldByAnother(e, platform)) throw e;
      opts.onRetry?.((e as NodeJS.ErrnoException).code!, attempt + 1);
      pauseSync(RENAME_PAUSES_MS[attempt]);
    }
  }
}

export async function renameReplacing(from: string, to: string, opts: RenameRetryOptions = {}): Promise<void> {
  const platform = opts.platform ?? process.platform;
  for (let attempt = 0; ; attempt++) {
    try {
      return await rename(from, to);
    } catch (e) {
      if (attempt >= RENAME_PAUSES_MS.length || !heldByAnother(e, platform)) throw e;
      opts.onRetry?.((e as NodeJS.ErrnoException).code!, attempt + 1);
      await new Promise((r) => setTimeout(r, RENAME_PAUSES_MS[attempt]));
    }
  }
}
