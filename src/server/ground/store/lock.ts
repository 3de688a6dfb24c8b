import {
  closeSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { BridgeError, isNoSpace } from '../../errors';

const heldHere = new Set<string>();

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process owns a data dir: `library.lock` holds its pid. A lock left by a
 * dead process is taken over; a live holder gets DATA_DIR_LOCKED naming it.
 */
/** `keepFile`: the bridge restarts in this process at once (a setting changed); the file keeps the data dir ours meanwhile. */
export interface DataDirLock {
  release(opts?: { keepFile?: boolean }): void;
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, 'library.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      createLock(path);
      heldHere.add(path);
      return {
        release(opts) {
          if (!heldHere.delete(path) || opts?.keepFile) return;
          try {
            unlinkSync(path);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = lockPid(path);
      const heldByLiveProcess = pid === process.pid ? heldHere.has(path) : pid > 0 && isProcessAlive(pid);
      if (heldByLiveProcess) {
        throw new BridgeError(
          'DATA_DIR_LOCKED',
          409,
          `The data dir ${dataDir} is already served by process ${pid}. Stop it first, or use another --data dir.`,
          { pid, dataDir },
        );
      }
      unlinkSync(path); // stale lock of a dead process
    }
  }
  throw new BridgeError('DATA_DIR_LOCKED', 409, `Could not take the lock on ${dataDir}.`, { dataDir });
}

/**
 * Removes the lock file when it names this process and this thread holds no
 * lock on it (other threads: the caller asks threadClaims.ts first).
 */
export function removeOwnLockFile(dataDir: string): void {
  const path = join(dataDir, 'library.lock');
  try {
    if (!heldHere.has(path) && lockPid(path) === process.pid) unlinkSync(path);
  } catch {
    /* none */
  }
}

/**
 * Creates the lock holding our pid; fails with EEXIST when it exists. On a
 * full disk the pid cannot be written into a file, so the lock is a symbolic
 * link whose target is the pid: it needs no data block (the target lives in
 * the inode), and a bridge started on a full disk still owns its data dir.
 * Windows lets only administrators make symbolic links, so there the full
 * disk is reported as such (NTFS keeps a file this small inside its MFT
 * record, so it rarely needs a free cluster). On Windows the pid check is
 * OpenProcess (process.kill(pid, 0) in libuv), and Windows hands out pids
 * again quickly: a stale lock naming a pid now used by some other process
 * keeps the data dir locked until that process ends, and the message names it.
 */
function createLock(path: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, String(process.pid));
  } catch (e) {
    closeSync(fd);
    unlinkSync(path);
    if (!isNoSpace(e) || process.platform === 'win32') throw e;
    symlinkSync(String(process.pid), path);
    return;
  }
  closeSync(fd);
}

/** The pid a lock names (a file holding it, or a link to it); 0 when unreadable. */
function lockPid(path: string): number {
  const text = lstatSync(path).isSymbolicLink() ? readlinkSync(path) : readFileSync(path, 'utf8');
  return Number(text.trim()) || 0;
}
