import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { BridgeError, insufficientStorage, isNoSpace } from '../../errors';

/**
 * Free bytes an unprivileged writer has on the file system holding `dir`
 * (statfs `bavail`: root's reserve does not count). A folder not made yet is
 * measured at its nearest existing parent. undefined when it cannot be told.
 */
export function freeBytes(dir: string): number | undefined {
  for (let d = dir; ; d = dirname(d)) {
    try {
      const s = statfsSync(d);
      return Number(s.bavail) * Number(s.bsize);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) return undefined;
    }
  }
}

/**
 * A write that failed for space as the caller's 507, with the free bytes of
 * the folder it wrote to. A 507 thrown below without `freeBytes` gets them
 * here; anything else is returned unchanged.
 */
export function asNoSpace(e: unknown, what: string, dir: string): unknown {
  if (e instanceof BridgeError) {
    if (e.code !== 'INSUFFICIENT_STORAGE' || e.details?.freeBytes !== undefined) return e;
    return new BridgeError(e.code, e.status, e.message, { ...e.details, freeBytes: freeBytes(dir) }, e.retryable);
  }
  return isNoSpace(e) ? insufficientStorage(what, freeBytes(dir), { errno: (e as { code: string }).code }) : e;
}

/** True for a raw ENOSPC/EDQUOT and for a 507 already made of one. */
export const failedForSpace = (e: unknown): boolean =>
  isNoSpace(e) || (e instanceof BridgeError && e.code === 'INSUFFICIENT_STORAGE');

/** For cache writes (`.catch(skipForSpace)`): a full disk skips the cache file, any other failure still throws. */
export const skipForSpace = (e: unknown): void => {
  if (!failedForSpace(e)) throw e;
};
