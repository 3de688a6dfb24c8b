import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeError } from '../errors';

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
export function acquireDataDirLock(dataDir: string): { release(): void } {
  const path = join(dataDir, 'library.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(path);
      return {
        release() {
          if (!heldHere.delete(path)) return;
          try {
            unlinkSync(path);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8').trim());
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
