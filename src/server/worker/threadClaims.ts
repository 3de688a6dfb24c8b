import { resolve } from 'node:path';
import { BridgeError } from '../errors';
import { removeOwnLockFile } from '../ground/store/lock';

/**
 * Data dirs a bridge of this process hosts, whichever thread it runs on.
 * library.lock holds only the pid, and each thread has its own copy of the
 * lock module, so a lock with our own pid cannot tell "a live worker holds
 * it" from "left by a bridge that died": the main thread, which starts every
 * bridge, keeps the answer here (a lock with our pid not claimed here is
 * stale and is taken over, as before).
 */
const claimed = new Set<string>();

/** Claims `dataDir` for one bridge; throws DATA_DIR_LOCKED when a bridge of this process has it. Returns the release. */
export function claimDataDir(dataDir: string): () => void {
  const key = resolve(dataDir);
  if (claimed.has(key)) {
    throw new BridgeError(
      'DATA_DIR_LOCKED',
      409,
      `The data dir ${dataDir} is already served by process ${process.pid}. Stop it first, or use another --data dir.`,
      { pid: process.pid, dataDir },
    );
  }
  claimed.add(key);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    claimed.delete(key);
  };
}

/**
 * Removes a lock file a restart kept (close with keepLock) when no bridge of
 * this process took it back, on any thread: the restart failed, and other
 * processes must be able to serve the data dir.
 */
export function dropKeptLock(dataDir: string): void {
  if (!claimed.has(resolve(dataDir))) removeOwnLockFile(dataDir);
}
